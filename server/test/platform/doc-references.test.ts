import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Comments and docs name only what a reader of the repository can open (issue 31): every `.ts`,
 * `.tsx` or `.md` file a comment or a Markdown page names exists in the tree, and nothing cites the
 * product spec by document or section number: the spec is not in the repository, so such a comment
 * states the rule itself or links the docs/ page that does.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file !== '' && fs.existsSync(path.join(root, file)));
const basenames = new Set(tracked.map((file) => path.basename(file)));
const codeFile = /\.(ts|tsx|mjs|cjs|js)$/;

/** A file name or path ending in .ts, .tsx or .md, not part of a URL, glob or `<placeholder>`. */
const fileReference = /(?<![\w@./<>*{}$[-])((?:\.{1,2}\/)*[\w@-][\w@./-]*\.(?:tsx|ts|md))(?![\w/*-])/g;
/** The spec by number, by section, or a document's numbered section (the spec lives outside the repository). */
const specCitation = new RegExp(['\\bspec', '(?:\\s+\\d{1,2}\\b|:?\\s*§)|[\\w-]+\\.md\\s*§'].join(''), 'gi');

/** Block and line comments (a `//` after a colon or a quote is a URL or a string, not a comment). */
const commentsOf = (text: string): string => (text.match(/\/\*[\s\S]*?\*\/|(?<![:'"`\w])\/\/[^\n]*/g) ?? []).join('\n');

/** The text a reader takes for prose: a Markdown page whole, a source file's comments. */
function proseOf(file: string): string | null {
  if (file.includes('__fixtures__')) return null;
  if (file.endsWith('.md')) return fs.readFileSync(path.join(root, file), 'utf8');
  if (codeFile.test(file)) return commentsOf(fs.readFileSync(path.join(root, file), 'utf8'));
  return null;
}

function missingReferences(file: string, prose: string): string[] {
  const missing: string[] = [];
  for (const match of prose.matchAll(fileReference)) {
    const reference = match[1]!;
    const exists = reference.includes('/')
      ? fs.existsSync(path.join(root, path.dirname(file), reference)) ||
        tracked.some((candidate) => candidate === reference || candidate.endsWith(`/${reference.replace(/^(\.{1,2}\/)+/, '')}`))
      : basenames.has(reference);
    if (!exists) missing.push(`${file} names ${reference}`);
  }
  return missing;
}

const specCitations = (file: string, prose: string): string[] =>
  [...prose.matchAll(specCitation)].map((match) => `${file} cites "${match[0]}"`);

describe('references in comments and docs', () => {
  const prose = tracked.flatMap((file) => {
    const text = proseOf(file);
    return text === null ? [] : [{ file, text }];
  });

  it('reads the sources and the docs (the scan finds what it looks for)', () => {
    expect(prose.map(({ file }) => file)).toEqual(
      expect.arrayContaining(['README.md', 'docs/relay.md', 'server/src/relay/stream/stream-driver.ts']),
    );
    expect(missingReferences('server/src/x.ts', `${'/'}** See stream-codecs.ts and docs/relay.md. */`)).toEqual([
      'server/src/x.ts names stream-codecs.ts',
    ]);
    expect(missingReferences('docs/x.md', 'See [a](../README.md), `server/src/relay/facade.ts` and `providers/<slug>/index.ts`.')).toEqual(
      [],
    );
    expect(specCitations('a.ts', `// The envelope (${'spec'} 01 §7), trimmed (${'spec'} §5), balance (providers.md ${'§'}6).`)).toEqual([
      `a.ts cites "${'spec'} 01"`,
      `a.ts cites "${'spec'} §"`,
      `a.ts cites "providers.md ${'§'}"`,
    ]);
  });

  it('every .ts, .tsx and .md file they name exists', () => {
    expect(prose.flatMap(({ file, text }) => missingReferences(file, text))).toEqual([]);
  });

  it('none cites the product spec by number', () => {
    expect(prose.flatMap(({ file, text }) => specCitations(file, text))).toEqual([]);
  });
});
