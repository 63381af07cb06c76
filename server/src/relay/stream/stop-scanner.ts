import type { Usage } from '../billing/quota.js';
import type { ChunkSink } from './chunk-handlers.js';

type Json = Record<string, unknown>;

/**
 * Stop sequences applied by the gateway, for clients that are told which one matched (Anthropic's
 * `stop_reason: "stop_sequence"` + `stop_sequence`) on upstreams that never say (OpenAI and Gemini
 * stop silently with a plain "stop"). The upstream is asked without them; the answer's text passes
 * through here, a tail that could still become a stop sequence held back, and at the first match
 * the text before it goes out, then a finish chunk carrying `finish_reason: "stop"` and
 * `stop_reason: <the sequence>` (vLLM's field, which the Anthropic encoders read), and the stream
 * is over (`isAnswered`: the driver stops reading the upstream, the bill is what was produced).
 */
export function stopScanner(sink: ChunkSink, stops: string[]): ChunkSink & { readonly isAnswered: boolean } {
  const sequences = stops.filter((stop) => stop.length > 0);
  let held = '';
  let isAnswered = false;
  let last: Json = {};

  /** The length of the longest tail of `text` that begins a stop sequence. */
  const heldTail = (text: string): number => {
    let keep = 0;
    for (const stop of sequences) {
      for (let n = Math.min(stop.length - 1, text.length); n > keep; n -= 1) {
        if (stop.startsWith(text.slice(text.length - n))) {
          keep = n;
          break;
        }
      }
    }
    return keep;
  };

  const textChunk = ({ usage: _usage, ...template }: Json, text: string): Json => ({
    ...template,
    choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
  });
  const flush = (template: Json): string => {
    if (held === '') return '';
    const text = held;
    held = '';
    return sink.onChunk(textChunk(template, text));
  };

  return {
    get isAnswered() {
      return isAnswered || sink.isAnswered === true;
    },
    onChunk(chunk) {
      if (isAnswered) return '';
      last = chunk;
      const choices = Array.isArray(chunk.choices) ? (chunk.choices as Json[]) : [];
      const choice = choices[0];
      const delta = (choice?.delta ?? {}) as Json;
      if (!choice || typeof delta.content !== 'string' || delta.content === '') {
        // No text: what was held goes out first (the answer ended, or a tool call began).
        return (choice ? flush(chunk) : '') + sink.onChunk(chunk);
      }
      const text = held + delta.content;
      let at = -1;
      let matched = '';
      for (const stop of sequences) {
        const index = text.indexOf(stop);
        if (index >= 0 && (at < 0 || index < at)) {
          at = index;
          matched = stop;
        }
      }
      if (at >= 0) {
        held = '';
        isAnswered = true;
        const before = at > 0 ? sink.onChunk(textChunk(chunk, text.slice(0, at))) : '';
        return before + sink.onChunk({ ...chunk, choices: [{ index: 0, delta: {}, finish_reason: 'stop', stop_reason: matched }] });
      }
      const keep = choice.finish_reason ? 0 : heldTail(text);
      held = text.slice(text.length - keep);
      const out = text.slice(0, text.length - keep);
      return out === '' && !choice.finish_reason ? '' : sink.onChunk({ ...chunk, choices: [{ ...choice, delta: { ...delta, content: out } }, ...choices.slice(1)] });
    },
    close(usage: Usage) {
      return (isAnswered ? '' : flush(last)) + sink.close(usage);
    },
    fail(error: unknown, usage: Usage) {
      const out = isAnswered ? '' : flush(last);
      return out + (sink.fail ? sink.fail(error, usage) : sink.close(usage));
    },
  };
}
