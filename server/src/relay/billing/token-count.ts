import { countTokens } from 'gpt-tokenizer';

/**
 * Token counting for upstreams that report no usage. o200k_base (gpt-4o family) is used for every
 * model: an estimate, as for every gateway of this family. Only runs when usage is missing.
 */
export function countTextTokens(text: string): number {
  if (text.length === 0) return 0;
  return countTokens(text);
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
  for (const message of messages as Array<Record<string, unknown>>) {
    total += 3;
    if (typeof message?.role === 'string') total += countTextTokens(message.role);
    total += countTextTokens(textOf(message?.content));
    if (typeof message?.name === 'string') total += 1 + countTextTokens(message.name);
  }
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
    return input.reduce<number>((sum, item) => sum + countInputTokens(item), 0);
  }
  return 0;
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
