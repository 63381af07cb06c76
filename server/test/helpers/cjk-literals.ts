import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** A string or template literal of the server's source that holds Chinese text. */
export interface CjkLiteral {
  /** The literal's text; a template's `${…}` parts become `{0}`, `{1}`, … (the catalog's form). */
  text: string;
  /** file:line, for the failure list. */
  where: string;
}

/** Han characters and CJK punctuation (the full-width comma and colon of the messages included). */
export const cjkPattern = /[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every Chinese string and template literal under `root` (comments are not literals and are skipped by the parser). */
export function findCjkLiterals(root: string): CjkLiteral[] {
  const found: CjkLiteral[] = [];
  for (const file of sourceFiles(root)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const add = (node: ts.Node, text: string) => {
      if (!cjkPattern.test(text)) return;
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push({ text, where: `${path.relative(root, file)}:${line + 1}` });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) add(node, node.text);
      else if (ts.isTemplateExpression(node)) {
        add(node, node.head.text + node.templateSpans.map((span, i) => `{${i}}${span.literal.text}`).join(''));
        // Literals inside the placeholders are messages of their own.
        for (const span of node.templateSpans) visit(span.expression);
        return;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
