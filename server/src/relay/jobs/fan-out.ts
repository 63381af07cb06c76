import { PassThrough } from 'node:stream';
import type { Usage } from '../billing/quota.js';
import { countTextTokens } from '../billing/token-count.js';
import { RelayError, UpstreamError } from '../errors.js';
import type { ResponseContext } from '../pipeline/respond.js';
import type { ChunkSink } from '../stream/chunk-handlers.js';
import type { EventHandler } from '../stream/event-codec.js';
import type {
  ChatConverter,
  ConvertedEvents,
  ProviderAdapter,
  StreamEvent,
  UpstreamRequest,
  UpstreamResponse,
} from '../providers/types.js';
import { sendUpstream } from '../providers/upstream-request.js';
import { createFramingDecoder } from '../stream/framing.js';
import { upstreamFailure } from '../upstream/dispatch.js';
import type { Json } from '@modelgate/shared';

type Transform = { onEvent(event: StreamEvent): ConvertedEvents; finish(): ConvertedEvents };

/** The most answers one request fans out to (OpenAI's own limit on `n` is 128). */
export const maxFanOut = 16;

/**
 * `n` > 1 (Gemini's `candidateCount`) on an upstream that makes one answer per call (Claude): the
 * number of calls to make, 1 when the request asks for one answer or the upstream makes several.
 */
export function fanOutOf(canonical: Json, converter: ChatConverter, upstreamModel: string): number {
  const n = canonical.n;
  if (converter.isOneAnswerPerCall?.(upstreamModel) !== true || typeof n !== 'number' || !Number.isInteger(n) || n <= 1) return 1;
  if (n > maxFanOut)
    throw new RelayError(
      400,
      'unsupported_parameter',
      `此渠道的 n（candidateCount）最大为 ${maxFanOut}：每个回答是一次上游调用`,
      false,
      'invalid_request_error',
    );
  return n;
}

/** The usage of several calls: every count summed (each call was billed its prompt upstream). */
export function sumUsage(usages: Usage[]): Usage {
  const total: Usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
  for (const usage of usages) {
    for (const [key, value] of Object.entries(usage) as Array<[keyof Usage, number | undefined]>) {
      if (typeof value === 'number') total[key] = (total[key] ?? 0) + value;
    }
  }
  return total;
}

/** Stops reading a call's answer (transports' bodies may only be dumped). */
function discard(response: UpstreamResponse): void {
  const body = response.body as { destroy?: () => void; dump?: () => Promise<void> };
  if (body.destroy) body.destroy();
  else void body.dump?.().catch(() => undefined);
}

const read = async (response: UpstreamResponse): Promise<string> => {
  let text = '';
  for await (const piece of response.body) if (text.length < 64 * 1024) text += (piece as Buffer).toString('utf8');
  return text;
};

/**
 * A fan-out as one OpenAI SSE stream, for the one stream driver. The first call is the attempt
 * loop's answer (`rc.response`); the others are sent now, side by side, to the same channel on the
 * one request path. Each call's stream goes through its own transform, its choice renumbered to the
 * call's place, and the chunks are interleaved as they come.
 * - An extra call that fails before answering fails the attempt (an UpstreamError: nothing reached
 *   the client, another channel may serve the request).
 * - A call that fails while streaming aborts the others and breaks the stream.
 * - Usage: each call's own (counted, when it reported none), summed over the calls that completed,
 *   sent as a usage chunk each time one completes. So a broken fan-out bills the calls that
 *   completed, and nothing for those that did not.
 * The merged stream's reader (`mergedHandler`) bills that sum; the gateway counts nothing itself.
 */
export async function fanOutStream(
  rc: ResponseContext,
  calls: number,
  fan: { adapter: ProviderAdapter; converter: ChatConverter; request: UpstreamRequest; transform: () => Transform },
): Promise<{ body: PassThrough; usage: () => Usage | null }> {
  const first = rc.response!;
  const local = new AbortController();
  const onAbort = () => local.abort();
  rc.signal.addEventListener('abort', onAbort);
  const request =
    typeof fan.request.body === 'object' &&
    fan.request.body !== null &&
    !(fan.request.body instanceof Uint8Array) &&
    fan.adapter.transport === undefined
      ? { ...fan.request, body: JSON.stringify(fan.request.body) }
      : fan.request;
  const responses: UpstreamResponse[] = [first];
  try {
    const others = await Promise.all(
      Array.from({ length: calls - 1 }, () =>
        sendUpstream(fan.adapter, request, { dispatcher: rc.relay.dispatcher, signal: local.signal }),
      ),
    );
    responses.push(...others);
    const failed = others.find((response) => response.statusCode < 200 || response.statusCode >= 300);
    if (failed) throw upstreamFailure(fan.adapter, failed.statusCode, await read(failed).catch(() => ''));
  } catch (error) {
    local.abort();
    rc.signal.removeEventListener('abort', onAbort);
    for (const response of responses) discard(response);
    if (error instanceof UpstreamError) throw error;
    throw new UpstreamError(0, `上游连接失败：${(error as Error).message}`, null, '');
  }

  const body = new PassThrough();
  const completed: Usage[] = [];
  let total: Usage | null = null;
  let id = '';
  const write = (payload: Json): Promise<void> | void => {
    if (body.write(`data: ${JSON.stringify(payload)}\n\n`)) return undefined;
    return new Promise<void>((resolve) => body.once('drain', resolve));
  };
  const emit = async (events: ConvertedEvents, index: number) => {
    for (const chunk of events.chunks) {
      if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) continue;
      if (!id && typeof chunk.id === 'string') id = chunk.id;
      const choices = (chunk.choices as Json[]).map((choice) => ({ ...choice, index }));
      await write({ ...chunk, id: id || chunk.id, choices });
    }
  };
  const runCall = async (response: UpstreamResponse, index: number) => {
    const decoder = createFramingDecoder(fan.converter.framing);
    const transform = fan.transform();
    let usage: Usage | null = null;
    let text = '';
    const take = (events: ConvertedEvents) => {
      usage = events.usage ?? usage;
      text += events.text;
      return emit(events, index);
    };
    for await (const piece of response.body) {
      for (const event of decoder.push(piece as Buffer)) await take(transform.onEvent(event));
    }
    for (const event of decoder.finish()) await take(transform.onEvent(event));
    await take(transform.finish());
    completed.push(usage ?? { promptTokens: rc.countPromptTokens(), completionTokens: countTextTokens(text), cachedTokens: 0 });
    total = sumUsage(completed);
    await write({ id, object: 'chat.completion.chunk', choices: [], usage: {} });
  };

  void Promise.all(responses.map((response, index) => runCall(response, index))).then(
    () => {
      rc.signal.removeEventListener('abort', onAbort);
      body.end('data: [DONE]\n\n');
    },
    (error: unknown) => {
      local.abort();
      rc.signal.removeEventListener('abort', onAbort);
      for (const response of responses) discard(response);
      body.destroy(error instanceof Error ? error : new Error(String(error)));
    },
  );
  return { body, usage: () => total };
}

const hasContent = (choice: Json): boolean => {
  const delta = choice.delta as Json | undefined;
  return Boolean(delta && (delta.content || delta.reasoning_content || delta.tool_calls)) || Boolean(choice.finish_reason);
};

/**
 * Reads the merged stream (the gateway's own OpenAI chunks) into the client's sink. Its usage chunks
 * stand for the sum of the calls completed so far (`usage`); its text is not counted, since each
 * call's own usage is billed.
 */
export function mergedHandler(sink: ChunkSink, usage: () => Usage | null): EventHandler {
  return {
    onEvent(event) {
      if (event.data === '[DONE]') return { output: '', text: '', usage: null };
      const chunk = JSON.parse(event.data) as Json;
      const choices = chunk.choices as Json[];
      if (choices.length === 0) return { output: '', text: '', usage: usage() };
      return {
        output: sink.onChunk(chunk),
        text: '',
        usage: null,
        isContent: choices.some(hasContent),
        isLast: sink.isAnswered === true,
        isComplete: sink.isComplete === true,
      };
    },
    end: () => ({ output: '', text: '', usage: null }),
    close: (final) => sink.close(final),
    fail: (error, final) => (sink.fail ? sink.fail(error, final) : sink.close(final)),
  };
}
