import type { ConvertedEvents, StreamEvent } from '../types.js';
import type { Json } from '@modelgate/shared';

/**
 * `parallel_tool_calls: false` on an upstream that cannot be told (Gemini has no such switch): the
 * client gets at most one tool call per choice, the first, as it asked. The upstream's usage is
 * still the bill, since it produced the others.
 */
export function firstToolCallOnly(completion: Json): Json {
  for (const choice of (Array.isArray(completion.choices) ? completion.choices : []) as Json[]) {
    const message = choice.message as Json | undefined;
    if (message && Array.isArray(message.tool_calls) && message.tool_calls.length > 1) message.tool_calls = message.tool_calls.slice(0, 1);
  }
  return completion;
}

type Transform = { onEvent(event: StreamEvent): ConvertedEvents; finish(): ConvertedEvents };

/** A stream: per choice, the deltas of the first tool call (by its index) pass; later calls are dropped. */
export function firstToolCallStream(transform: Transform): Transform {
  const firstCall = new Map<number, number>();

  const rewriteChoice = (choice: Json, position: number): Json | null => {
    const delta = choice.delta as Json | undefined;
    if (!delta || !Array.isArray(delta.tool_calls)) return choice;
    const index = typeof choice.index === 'number' ? choice.index : position;
    const kept = (delta.tool_calls as Json[]).filter((call) => {
      const callIndex = typeof call.index === 'number' ? call.index : 0;
      if (!firstCall.has(index)) firstCall.set(index, callIndex);
      return firstCall.get(index) === callIndex;
    });
    const { tool_calls: _calls, ...rest } = delta;
    const rewritten = kept.length > 0 ? { ...rest, tool_calls: kept } : rest;
    // A chunk that carried only a dropped call has nothing left to say, unless it ends the choice.
    if (Object.keys(rewritten).length === 0 && !choice.finish_reason && choice.logprobs === undefined) return null;
    return { ...choice, delta: rewritten };
  };

  const rewrite = (chunk: Json): Json | null => {
    if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) return chunk;
    const choices = (chunk.choices as Json[]).map(rewriteChoice).filter((choice) => choice !== null);
    return choices.length > 0 || chunk.usage !== undefined ? { ...chunk, choices } : null;
  };
  const map = (events: ConvertedEvents): ConvertedEvents => ({
    ...events,
    chunks: events.chunks.map(rewrite).filter((chunk) => chunk !== null),
  });
  return { onEvent: (event) => map(transform.onEvent(event)), finish: () => map(transform.finish()) };
}
