import type { ChatConverter, ProviderAdapter } from '../providers/types.js';

/** OpenAI's limit, taken for OpenAI-wire providers that state none. */
const openAiWireLimit = 4;

/**
 * The stop sequences of an Anthropic client that go on to the upstream: as many as it takes (OpenAI
 * 4 and none on its reasoning models, Gemini 5, Claude all; a converter that states no limit does
 * not send `stop` on), so that it stops by itself and reports, and charges, what it produced. The
 * gateway still scans the text for every sequence (stream/stop-scanner.ts): the ones left out, or
 * ignored by the upstream.
 */
export function stopsForUpstream(
  stops: readonly string[],
  adapter: ProviderAdapter,
  converter: ChatConverter | null,
  upstreamModel: string,
): string[] {
  const limit = converter
    ? (converter.stopSequenceLimit?.(upstreamModel) ?? 0)
    : (adapter.chat.stopSequenceLimit?.(upstreamModel) ?? openAiWireLimit);
  return stops.slice(0, limit);
}

/**
 * Whether the upstream's plain "stop" stands for the one sequence asked: only when exactly one was
 * asked and sent, to an upstream that does not say which sequence ended it (OpenAI and Gemini do
 * not; Claude does, and its end_turn is not a sequence).
 */
export function namesUpstreamStop(
  stops: readonly string[],
  sent: readonly string[],
  converter: ChatConverter | null,
  upstreamModel: string,
): boolean {
  return stops.length === 1 && sent.length === 1 && converter?.reportsStopSequence?.(upstreamModel) !== true;
}
