import { countTokens } from 'gpt-tokenizer';

/**
 * Token counting for upstreams that report no usage. o200k_base (gpt-4o family) is used for every
 * model: an estimate, as for every gateway of this family. Only runs when usage is missing.
 */
export function countTextTokens(text: string): number {
  if (text.length === 0) return 0;
  return countTokens(text);
}

/** Cheap prompt estimate for the pre-consume hold (no tokenizer on the hot path): ~4 chars/token. */
export function roughTokenEstimate(chars: number): number {
  return Math.ceil(chars / 4);
}

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
