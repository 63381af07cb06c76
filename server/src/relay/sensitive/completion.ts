import type { Usage } from '../billing/quota.js';
import type { ChunkSink } from '../stream/chunk-handlers.js';
import { masked, rangesOf, type SensitiveGuard } from './guard.js';
import type { Json } from '@modelgate/shared';

/** Where a choice's text is: chat deltas (`delta.content`), chat messages, or completions (`text`). */
const textKey = (choice: Json): 'delta' | 'message' | 'text' | null =>
  typeof (choice.delta as Json | undefined)?.content === 'string'
    ? 'delta'
    : typeof (choice.message as Json | undefined)?.content === 'string'
      ? 'message'
      : typeof choice.text === 'string'
        ? 'text'
        : null;

const getText = (choice: Json, key: 'delta' | 'message' | 'text'): string =>
  key === 'text' ? (choice.text as string) : ((choice[key] as Json).content as string);
const withText = (choice: Json, key: 'delta' | 'message' | 'text', text: string): Json =>
  key === 'text' ? { ...choice, text } : { ...choice, [key]: { ...(choice[key] as Json), content: text } };

/**
 * A whole answer's completion checked: each word masked, or (StopOnSensitiveEnabled) the text cut
 * before the first one with finish_reason content_filter.
 */
export function guardCompletion(completion: Json, guard: SensitiveGuard): Json {
  if (!Array.isArray(completion.choices)) return completion;
  const choices = (completion.choices as Json[]).map((choice) => {
    const key = choice && typeof choice === 'object' ? textKey(choice) : null;
    if (!key) return choice;
    const text = getText(choice, key);
    const ranges = rangesOf(guard.matcher.matches(text));
    if (ranges.length === 0) return choice;
    if (guard.stops) return { ...withText(choice, key, text.slice(0, ranges[0]![0])), finish_reason: 'content_filter' };
    return withText(choice, key, masked(text, ranges));
  });
  return { ...completion, choices };
}

/**
 * A stream's completion checked as it passes, per choice: a tail that could still begin a word is
 * held back (a word split across chunks is still caught); each word is masked, or at the first one
 * the text before it goes out with finish_reason content_filter and the stream is over
 * (`isAnswered`: the driver stops reading the upstream, the bill is what was produced).
 */
export function sensitiveSink(sink: ChunkSink, guard: SensitiveGuard): ChunkSink & { readonly isAnswered: boolean } {
  const held = new Map<number, string>();
  const keep = guard.matcher.maxLength - 1;
  let isAnswered = false;
  let last: Json = {};

  const textChunk = (
    { usage: _usage, ...template }: Json,
    index: number,
    key: 'delta' | 'text',
    text: string,
    finish: string | null = null,
  ): Json => ({
    ...template,
    choices: [key === 'text' ? { index, text, finish_reason: finish } : { index, delta: { content: text }, finish_reason: finish }],
  });
  const isCompletions = (chunk: Json) => chunk.object === 'text_completion';
  const flushAll = (template: Json): string => {
    let out = '';
    for (const [index, text] of held)
      if (text !== '')
        out += sink.onChunk(
          textChunk(template, index, isCompletions(template) ? 'text' : 'delta', masked(text, rangesOf(guard.matcher.matches(text)))),
        );
    held.clear();
    return out;
  };

  return {
    get isAnswered() {
      return isAnswered || sink.isAnswered === true;
    },
    onChunk(chunk) {
      if (isAnswered) return '';
      last = chunk;
      const choices = Array.isArray(chunk.choices) ? (chunk.choices as Json[]) : [];
      const out: Json[] = [];
      let before = '';
      for (const choice of choices) {
        const key = choice && typeof choice === 'object' ? textKey(choice) : null;
        const index = typeof choice?.index === 'number' ? choice.index : 0;
        if (key !== 'delta' && key !== 'text') {
          // No text (the finish, a tool call): what this choice held goes out first, in its own chunk.
          const pending = held.get(index) ?? '';
          if (pending !== '')
            before += sink.onChunk(
              textChunk(chunk, index, isCompletions(chunk) ? 'text' : 'delta', masked(pending, rangesOf(guard.matcher.matches(pending)))),
            );
          held.delete(index);
          out.push(choice);
          continue;
        }
        const text = (held.get(index) ?? '') + getText(choice, key);
        const ranges = rangesOf(guard.matcher.matches(text));
        if (guard.stops && ranges.length > 0) {
          isAnswered = true;
          const kept = text.slice(0, ranges[0]![0]);
          return (
            before +
            (kept !== '' ? sink.onChunk(textChunk(chunk, index, key, kept)) : '') +
            sink.onChunk(textChunk(chunk, index, key, '', 'content_filter'))
          );
        }
        // Emit up to where a word could still be forming, past any word that ends beyond that point.
        let cut = choice.finish_reason ? text.length : Math.max(0, text.length - keep);
        for (const [start, end] of ranges) if (start < cut && end > cut) cut = end;
        held.set(index, text.slice(cut));
        const emitted = masked(
          text.slice(0, cut),
          ranges.filter(([, end]) => end <= cut),
        );
        if (emitted !== '' || choice.finish_reason) out.push(withText(choice, key, emitted));
      }
      if (out.length === 0 && choices.length > 0) return before;
      return (
        before +
        sink.onChunk(out.length === choices.length && out.every((choice, i) => choice === choices[i]) ? chunk : { ...chunk, choices: out })
      );
    },
    close(usage: Usage) {
      return (isAnswered ? '' : flushAll(last)) + sink.close(usage);
    },
    fail(error: unknown, usage: Usage) {
      const out = isAnswered ? '' : flushAll(last);
      return out + (sink.fail ? sink.fail(error, usage) : sink.close(usage));
    },
  };
}
