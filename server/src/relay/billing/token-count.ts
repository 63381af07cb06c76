import { countTokens } from 'gpt-tokenizer';

/**
 * What the tokenizer is given at most in one piece. o200k's byte-pair merge is quadratic in the length
 * of a run its pattern does not split (CJK without punctuation, one long word, base64): 100,000
 * `x`s took 4.7 s and 8,192 random CJK characters 260 ms in one piece; in pieces of this size either
 * costs 1–2 µs per character.
 */
const maxPieceChars = 128;
/** A text up to this long is tokenized whole; of a longer one, `sampleCount` windows are. */
export const exactTokenChars = 32_768;
const sampleCount = 16;
const sampleChars = 1_024;
const unbrokenRun = new RegExp(`\\S{${maxPieceChars + 1}}`);

/**
 * Token counting for upstreams that report no usage, and for the count-tokens endpoints. o200k_base
 * (gpt-4o family) is used for every model: an estimate, as for every gateway of this family.
 * A text longer than exactTokenChars is estimated from windows at random places (tokenizing random
 * text costs 1–2 µs per character, so a 32 MB body would hold the event loop for a minute); the
 * places are not known in advance, so a text cannot be built to be undercounted.
 */
export function countTextTokens(text: string): number {
  if (text.length === 0) return 0;
  if (text.length <= exactTokenChars) return tokenize(text);
  const stride = text.length / sampleCount;
  let tokens = 0;
  let chars = 0;
  for (let i = 0; i < sampleCount; i += 1) {
    const start = pieceStart(text, Math.floor(i * stride + Math.random() * (stride - sampleChars)));
    const window = text.slice(start, pieceStart(text, start + sampleChars));
    tokens += tokenize(window);
    chars += window.length;
  }
  return Math.ceil((tokens * text.length) / chars);
}

/** The exact count of a text, tokenized in pieces no longer than maxPieceChars where a run is longer. */
function tokenize(text: string): number {
  // Almost every prose text has no run that long: one call, exact.
  if (!unbrokenRun.test(text)) return countTokens(text);
  let total = 0;
  let start = 0;
  while (text.length - start > maxPieceChars) {
    // Before a space in the piece's second half (the tokenizer starts a word there too), else a hard cut.
    // Searched only there: lastIndexOf would go on back through the run for every piece.
    const half = start + maxPieceChars / 2;
    let space = start + maxPieceChars;
    while (space > half && text.charCodeAt(space) !== 32 /* space */) space -= 1;
    const end = space > half ? space : pieceStart(text, start + maxPieceChars);
    total += countTokens(text.slice(start, end));
    start = end;
  }
  return total + countTokens(text.slice(start));
}

/** `at`, or one less when `at` would part a surrogate pair. */
function pieceStart(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff && at > 0 ? at - 1 : at;
}

/**
 * Cheap estimate of a text's tokens for the pre-consume hold (no tokenizer on the hot path): its
 * UTF-8 bytes ÷ 2 (Buffer.byteLength is native). ASCII: 2 characters per token (tokenizers give
 * 3.5–4.5 for prose, 2–3 for code, digits and symbols); CJK (3 bytes): 1.5 per character (o200k
 * ~0.7–1, cl100k and Claude ~1–1.3); Cyrillic, Greek, Arabic (2 bytes): 1; emoji: 2 or more.
 * A token is at least one byte, so no text can have more than twice this estimate: the bound of
 * docs/billing.md. Fractional: round the sum up.
 */
export function estimateTextTokens(text: string): number {
  return Buffer.byteLength(text, 'utf8') / 2;
}

/** Tokens an image part costs at most (GPT-4o high detail ~1,105; Claude up to ~1,600). */
export const imagePartTokens = 1_600;
/** Framing tokens of one chat message (role and separators; OpenAI counts 3 + the role). */
export const messageFramingTokens = 4;

/** Counts a chat request's prompt the way OpenAI frames it: 3 tokens per message + 3 for the reply. */
export function countChatPromptTokens(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  let total = 3;
  const contents: string[] = [];
  let chars = 0;
  for (const message of messages as Array<Record<string, unknown>>) {
    total += 3;
    if (typeof message?.role === 'string') total += countTextTokens(message.role);
    const content = textOf(message?.content);
    contents.push(content);
    chars += content.length;
    if (typeof message?.name === 'string') total += 1 + countTextTokens(message.name);
  }
  // Past the exact length the contents are estimated together: many long messages cost what one does.
  if (chars > exactTokenChars) return total + countTextTokens(contents.join(''));
  for (const content of contents) total += countTextTokens(content);
  return total;
}

/** Text of a message content: a string or an array of {type:'text', text} parts. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    let text = '';
    for (const part of content as Array<Record<string, unknown>>) if (typeof part?.text === 'string') text += part.text;
    return text;
  }
  return '';
}

/** The text of a chat request's messages (contents and text parts), one message per line: what sensitive words are checked on. */
export function messagesText(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  return (messages as Array<Record<string, unknown>>).map((message) => textOf(message?.content)).join('\n');
}

/** The text of completions/embeddings/moderation inputs (a string or a string list; token ids have none). */
export function inputText(input: unknown): string {
  if (typeof input === 'string') return input;
  return Array.isArray(input) ? input.map(inputText).join('\n') : '';
}

/** Prompt tokens of completions/embeddings/moderation inputs: a string, a string list or token ids. */
export function countInputTokens(input: unknown): number {
  if (typeof input === 'string') return countTextTokens(input);
  if (Array.isArray(input)) {
    if (input.every((item) => typeof item === 'number')) return input.length;
    // Past the exact length the strings are estimated together: many long inputs cost what one does.
    if (textLength(input) > exactTokenChars) return countTextTokens(inputText(input)) + tokenIdCount(input);
    return input.reduce<number>((sum, item) => sum + countInputTokens(item), 0);
  }
  return 0;
}

/** The characters of an input's strings, at any depth. */
function textLength(input: unknown): number {
  if (typeof input === 'string') return input.length;
  return Array.isArray(input) ? input.reduce<number>((sum, item) => sum + textLength(item), 0) : 0;
}

/** The token ids of an input's id lists (they have no text). */
function tokenIdCount(input: unknown[]): number {
  return input.reduce<number>(
    (sum, item) => sum + (Array.isArray(item) ? (item.every((id) => typeof id === 'number') ? item.length : tokenIdCount(item)) : 0),
    0,
  );
}

/**
 * Counts streamed text incrementally with bounded memory: text is buffered only up to the last
 * whitespace; each complete run of words is tokenized and dropped.
 */
export class StreamingTokenCounter {
  private pending = '';
  private total = 0;

  push(text: string): void {
    if (!text) return;
    this.pending += text;
    if (this.pending.length < 256) return;
    const cut = this.pending.lastIndexOf(' ');
    if (cut <= 0) {
      if (this.pending.length > 4096) this.drain();
      return;
    }
    this.total += countTextTokens(this.pending.slice(0, cut));
    this.pending = this.pending.slice(cut);
  }

  private drain(): void {
    this.total += countTextTokens(this.pending);
    this.pending = '';
  }

  finish(): number {
    this.drain();
    return this.total;
  }

  get bufferedChars(): number {
    return this.pending.length;
  }
}
