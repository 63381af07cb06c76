import { WordMatcher } from '../../lib/word-matcher.js';
import type { Usage } from '../billing/quota.js';
import type { ChunkSink } from './chunk-handlers.js';
import type { Json } from '@modelgate/shared';

/**
 * Stop sequences for clients that are told which one matched (Anthropic's `stop_reason:
 * "stop_sequence"` + `stop_sequence`) on upstreams that never say (OpenAI and Gemini stop with a
 * plain "stop"). The upstream is sent as many of them as it takes (jobs/stop-sequences.ts) and
 * stops by itself; when its plain "stop" stands for the one sequence asked (`namesUpstreamStop`:
 * one asked and sent, to an upstream that does not say which), it names it.
 *
 * The answer's text passes through here (all sequences searched at once, lib/word-matcher.ts), a tail
 * that could still become a sequence held back: a sequence the upstream was not sent (or ignored)
 * ends the answer where the first one completes, the text before it going out, then a finish chunk with `finish_reason: "stop"` and `stop_reason: <the
 * sequence>` (vLLM's field, which the Anthropic encoders read). The upstream is then read on to its
 * end, its text discarded (`isComplete`), so that the bill is the usage it reports; should it fail
 * or go idle after that, the answer still ends as answered, billed what was produced.
 */
export function stopScanner(sink: ChunkSink, stops: string[], namesUpstreamStop: boolean): ChunkSink & { readonly isComplete: boolean } {
  const sequences = stops.filter((stop) => stop.length > 0);
  let held = '';
  let isCut = false;
  let last: Json = {};
  const matcher = new WordMatcher(sequences, { foldCase: false }).cursor();

  const textChunk = ({ usage: _usage, ...template }: Json, text: string): Json => ({
    ...template,
    choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
  });
  const flush = (template: Json): string => {
    matcher.reset();
    if (held === '') return '';
    const text = held;
    held = '';
    return sink.onChunk(textChunk(template, text));
  };
  /** The upstream's own stop, naming the one sequence it was sent. */
  const named = (choice: Json): Json =>
    namesUpstreamStop && choice.finish_reason === 'stop' && choice.stop_reason == null ? { ...choice, stop_reason: sequences[0] } : choice;

  return {
    get isAnswered() {
      return sink.isAnswered === true;
    },
    get isComplete() {
      return isCut || sink.isComplete === true;
    },
    onChunk(chunk) {
      if (isCut) return '';
      last = chunk;
      const choices = Array.isArray(chunk.choices) ? (chunk.choices as Json[]) : [];
      const choice = choices[0];
      const delta = (choice?.delta ?? {}) as Json;
      if (!choice || typeof delta.content !== 'string' || delta.content === '') {
        // No text: what was held goes out first (the answer ended, or a tool call began).
        return (choice ? flush(chunk) : '') + sink.onChunk(choice ? { ...chunk, choices: [named(choice), ...choices.slice(1)] } : chunk);
      }
      const text = held + delta.content;
      const found = matcher.feed(delta.content);
      if (found) {
        const at = held.length + found.end - found.word.length;
        held = '';
        isCut = true;
        const before = at > 0 ? sink.onChunk(textChunk(chunk, text.slice(0, at))) : '';
        return before + sink.onChunk({ ...chunk, choices: [{ index: 0, delta: {}, finish_reason: 'stop', stop_reason: found.word }] });
      }
      if (choice.finish_reason) matcher.reset();
      const keep = choice.finish_reason ? 0 : matcher.pending;
      held = text.slice(text.length - keep);
      const out = text.slice(0, text.length - keep);
      return out === '' && !choice.finish_reason
        ? ''
        : sink.onChunk({ ...chunk, choices: [named({ ...choice, delta: { ...delta, content: out } }), ...choices.slice(1)] });
    },
    close(usage: Usage) {
      return (isCut ? '' : flush(last)) + sink.close(usage);
    },
    fail(error: unknown, usage: Usage) {
      // The answer was whole before the upstream failed: it ends as answered.
      if (isCut) return sink.close(usage);
      const out = flush(last);
      return out + (sink.fail ? sink.fail(error, usage) : sink.close(usage));
    },
  };
}
