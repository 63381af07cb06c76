import { catalog, type CatalogEntry } from './catalog/index.js';
import type { Language } from './language.js';

/** Han characters and CJK punctuation (full-width comma, colon, brackets): a text without them has nothing to translate. */
export const chineseText = /[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/;

/** A catalog text with `{n}` parts: its literal pieces around them, the part numbers in order, and the English. */
interface Template {
  pieces: string[];
  slots: number[];
  en: string;
}

const placeholder = /\{(\d+)\}/g;

function compile(entries: readonly CatalogEntry[]): { exact: Map<string, string>; templates: Template[] } {
  const exact = new Map<string, string>();
  const templates: Template[] = [];
  for (const [zh, en] of entries) {
    const slots = [...zh.matchAll(placeholder)].map((match) => Number(match[1]));
    if (slots.length === 0) exact.set(zh, en);
    else templates.push({ pieces: zh.split(/\{\d+\}/), slots, en });
  }
  // The most specific template first: `{0} 必须是正整数` before `{0}`-heavy shorter ones.
  const literalLength = (template: Template) => template.pieces.reduce((sum, piece) => sum + piece.length, 0);
  templates.sort((a, b) => literalLength(b) - literalLength(a));
  return { exact, templates };
}

const { exact, templates } = compile(catalog);

/**
 * The values of a text written from a template, or null when it is not. Linear: the first piece is
 * a prefix, the last a suffix, each piece between is found at its first place after the one before
 * (a value that holds the next piece's text is not matched, and the text stays as it is).
 */
function valuesOf(template: Template, text: string): string[] | null {
  const { pieces } = template;
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  const end = text.length - last.length;
  if (end < first.length || !text.startsWith(first) || !text.endsWith(last)) return null;
  const values: string[] = [];
  let at = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const found = text.indexOf(pieces[i]!, at);
    if (found < 0 || found + pieces[i]!.length > end) return null;
    values.push(text.slice(at, found));
    at = found + pieces[i]!.length;
  }
  values.push(text.slice(at, end));
  return values;
}

/** Texts this long are not ours (an upstream's body, a stored log): they are left as they are. */
const maxTranslatedLength = 4000;
/** Values inside values (a group name in a message in a log line) are translated this deep. */
const maxDepth = 2;

function toEnglish(text: string, depth: number): string {
  const known = exact.get(text);
  if (known !== undefined) return known;
  for (const template of templates) {
    const values = valuesOf(template, text);
    if (!values) continue;
    return template.en.replace(placeholder, (_whole, n: string) => {
      const value = values[template.slots.indexOf(Number(n))] ?? '';
      return depth < maxDepth && chineseText.test(value) ? toEnglish(value, depth + 1) : value;
    });
  }
  return depth < maxDepth ? compoundToEnglish(text, depth) : text;
}

/** `field: message` (a schema problem with its field), `Key message` (an option's problem after its key). */
const fieldPrefixed = /^([\w.[\]-]{1,100})(: | )([^]+)$/;

/**
 * Messages made of messages: several joined by `; ` (every problem of a body), or one after a
 * field or option name. Each part is translated on its own.
 */
function compoundToEnglish(text: string, depth: number): string {
  if (text.includes('; '))
    return text
      .split('; ')
      .map((part) => (chineseText.test(part) ? toEnglish(part, depth + 1) : part))
      .join('; ');
  const prefixed = fieldPrefixed.exec(text);
  if (prefixed) return prefixed[1]! + prefixed[2]! + toEnglish(prefixed[3]!, depth + 1);
  return text;
}

/**
 * A server text in the caller's language: Chinese as written; English from the catalog
 * (lib/i18n/catalog/), values of templates translated too. A text the catalog does not know (an
 * upstream's own message, an admin's setting) is returned as it is.
 */
export function translate(text: string, language: Language): string {
  if (language === 'zh' || text.length > maxTranslatedLength || !chineseText.test(text)) return text;
  return toEnglish(text, 0);
}
