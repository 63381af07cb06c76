import type { Usage } from '../billing/quota.js';
import { countTextTokens, textOf } from '../billing/token-count.js';
import type { InboundFormat } from '../formats/types.js';
import type { RelayChannel } from '../routing/channel-index.js';
import {
  converterHandler,
  createChunkAggregate,
  formatChunkSink,
  nativeHandler,
  openAiChunkSink,
  openAiWireHandler,
  type ChunkSink,
} from '../stream/chunk-handlers.js';
import type { EventHandler } from '../stream/event-codec.js';
import type { DecoderFraming } from '../stream/framing.js';
import { stopScanner } from '../stream/stop-scanner.js';
import { fanOutOf, fanOutStream, mergedHandler } from './fan-out.js';
import { namesUpstreamStop, stopsForUpstream } from './stop-sequences.js';
import { guardCompletion, sensitiveSink } from '../sensitive/completion.js';
import { sensitiveGuard, type SensitiveGuard } from '../sensitive/guard.js';
import type { ChannelCall, UpstreamBody } from '../upstream/dispatch.js';
import { sendJsonAnswer, streamAnswer, type Delivery, type ResponseContext } from '../pipeline/respond.js';
import { jsonAsTool, jsonFromToolCall, jsonFromToolStream, type JsonTool } from '../providers/shared/structured-output.js';
import { firstToolCallOnly, firstToolCallStream } from '../providers/shared/one-tool-call.js';
import type { ChatConverter, NativeWire, ProviderAdapter } from '../providers/types.js';
import { unresolvedPreviousId } from '../response-store.js';
import type { Json } from '@modelgate/shared';

/** A chat-like request as the planner sees it, whatever format the client spoke. */
export interface ChatSpec {
  endpoint: 'chat' | 'completions';
  isStream: boolean;
  clientWantsUsage: boolean;
  /** The canonical request: an OpenAI chat (or completions) body. */
  canonical: Json;
  /** The client's own format when it is not OpenAI chat; null for /v1/chat/completions. */
  inbound: InboundFormat | null;
  /** The client's body as sent, for native pass-through. */
  nativeBody: Json | null;
  /**
   * Stop sequences the gateway applies itself (Anthropic clients on converted channels, told which one
   * matched): the upstream is sent as many as it takes (stop-sequences.ts), always streaming, and its
   * text scanned for all of them.
   */
  stopSequences?: string[] | null;
  /** Whether the attempt's upstream's plain "stop" names the one sequence asked (set per attempt; stop-sequences.ts). */
  namesUpstreamStop?: boolean;
  /** Completions checked for sensitive words (set per attempt by planChat from the options of the moment). */
  completionGuard?: SensitiveGuard | null;
  /** The OpenAI-wire body for OpenAI-compatible channels (stream rules, prepareBody, overrides). */
  openAiBody(channel: RelayChannel, upstreamModel: string): Json;
}

/** Completion tokens of an OpenAI answer (chat message content or completion text). */
export function countAnswerTokens(completion: Json): number {
  const choices = (Array.isArray(completion.choices) ? completion.choices : []) as Json[];
  return choices.reduce((sum, choice) => {
    const message = (choice.message ?? {}) as Json;
    return sum + countTextTokens(textOf(message.content) + (typeof choice.text === 'string' ? choice.text : ''));
  }, 0);
}

const usageOr = (usage: Usage | null, rc: ResponseContext, completion: Json): Usage =>
  usage ?? { promptTokens: rc.countPromptTokens(), completionTokens: countAnswerTokens(completion), cachedTokens: 0 };

function sinkFor(spec: ChatSpec, rc: ResponseContext): ChunkSink {
  const model = rc.model;
  const sink = spec.inbound
    ? formatChunkSink(spec.inbound, model, rc.countPromptTokens)
    : openAiChunkSink(model, spec.clientWantsUsage, spec.endpoint === 'chat' ? 'chat.completion.chunk' : 'text_completion');
  return guarded(spec, sink);
}

/** A sink behind the checks the gateway applies to the answer's text: stop sequences, then sensitive words. */
function guarded(spec: ChatSpec, sink: ChunkSink): ChunkSink {
  const checked = spec.completionGuard ? sensitiveSink(sink, spec.completionGuard) : sink;
  return spec.stopSequences ? stopScanner(checked, spec.stopSequences, spec.namesUpstreamStop === true) : checked;
}

/** A whole answer with its sensitive words masked (or cut), when completions are checked. */
const guardedCompletion = (spec: ChatSpec, completion: Json): Json =>
  spec.completionGuard ? guardCompletion(completion, spec.completionGuard) : completion;

/** The stop sequences the gateway applies to an upstream that streams (null: the upstream applies them). */
const scannedStops = (spec: ChatSpec, upstreamStreams: boolean): string[] | null => (upstreamStreams ? (spec.stopSequences ?? null) : null);

const withOverride = (body: Json, channel: RelayChannel): Json => (channel.paramOverride ? { ...body, ...channel.paramOverride } : body);

function nativeOf(adapter: ProviderAdapter, spec: ChatSpec, upstreamModel: string): NativeWire | null {
  const native = adapter.native;
  if (!native || !spec.inbound || !spec.nativeBody || spec.endpoint !== 'chat') return null;
  if (native.format !== spec.inbound.wire) return null;
  return native.accepts?.(upstreamModel) === false ? null : native;
}

async function planNative(native: NativeWire, spec: ChatSpec, channel: RelayChannel, call: ChannelCall): Promise<UpstreamBody> {
  const request = await native.buildRequest(withOverride(spec.nativeBody!, channel), { ...call, isStream: spec.isStream });
  const respond = spec.isStream
    ? (rc: ResponseContext) => streamAnswer(rc, native.framing, nativeHandler(native))
    : (rc: ResponseContext) =>
        sendJsonAnswer(rc, ({ bytes, json }) => ({
          body: bytes,
          usage: (json && native.readUsage(json)) ?? { promptTokens: rc.countPromptTokens(), completionTokens: 0, cachedTokens: 0 },
        }));
  return { kind: 'request', value: request, respond };
}

async function planConverted(converter: ChatConverter, spec: ChatSpec, channel: RelayChannel, call: ChannelCall): Promise<UpstreamBody> {
  const chatCall = { ...call, isStream: spec.isStream };
  // Dify agent apps only stream: the answer is aggregated for non-stream clients. Stop sequences
  // the gateway applies need the stream too.
  // n > 1 on an upstream of one answer per call: n calls, streamed side by side and merged (fan-out.ts).
  const calls = fanOutOf(spec.canonical, converter, call.upstreamModel);
  const isStreamOnly = converter.isStreamOnly?.(chatCall) === true || Boolean(spec.stopSequences) || calls > 1;
  const upstreamStreams = (spec.isStream || isStreamOnly) && !converter.isStreamingUnsupported;
  const stops = scannedStops(spec, upstreamStreams);
  const sent = stops ? stopsForUpstream(stops, channel.adapter!, converter, call.upstreamModel) : [];
  const canonical = stops ? withStops(spec.canonical, sent) : spec.canonical;
  const scanned = {
    ...spec,
    stopSequences: stops,
    namesUpstreamStop: stops !== null && namesUpstreamStop(stops, sent, converter, call.upstreamModel),
  };
  const asked = withOverride({ ...(calls > 1 ? withoutN(canonical) : canonical), model: call.upstreamModel }, channel);
  // No JSON mode upstream (Claude): the requested schema is a tool the model must call, unless the
  // model takes the schema itself (Claude's output_config.format on recent models).
  const native = (schema: Json) => converter.nativeJsonSchema?.(schema, call.upstreamModel, call.options) ?? null;
  const { body, tool } =
    converter.jsonByTool?.(call.upstreamModel) === true ? jsonAsTool(asked, call.upstreamModel, native) : { body: asked, tool: null };
  const request = await converter.buildRequest(body, { ...chatCall, isStream: upstreamStreams });
  // Upstreams without a switch for it (Gemini) may answer several calls: the client gets the first.
  const shape: AnswerShape = { tool, isOneCall: body.parallel_tool_calls === false };
  const respond = async (rc: ResponseContext): Promise<Delivery> => {
    if (calls > 1 && upstreamStreams)
      return fanOutAnswer(rc, spec, scanned, calls, {
        adapter: channel.adapter!,
        converter,
        request,
        transform: () => streamTransform(converter, rc.model, shape),
      });
    if (spec.isStream) {
      // An upstream that cannot stream: its whole answer is one event for the stream transform.
      return streamAnswer(
        rc,
        upstreamStreams ? converter.framing : 'whole',
        converterHandler(streamTransform(converter, rc.model, shape), sinkFor(scanned, rc)),
      );
    }
    if (upstreamStreams)
      return aggregateStream(rc, spec, converter.framing, (sink) =>
        converterHandler(streamTransform(converter, rc.model, shape), guarded(scanned, sink)),
      );
    return sendJsonAnswer(rc, ({ json }) => {
      const parsed = converter.parseResponse(json ?? {}, rc.model);
      const calls = shape.isOneCall ? firstToolCallOnly(parsed.completion) : parsed.completion;
      const completion = guardedCompletion(spec, tool ? jsonFromToolCall(calls, tool) : calls);
      const final = usageOr(parsed.usage, rc, completion);
      return { body: spec.inbound ? spec.inbound.fromOpenAI(completion, rc.model, final) : completion, usage: final };
    });
  };
  return { kind: 'request', value: request, respond, ...(calls > 1 && upstreamStreams ? { calls } : {}) };
}

/** What the gateway reshapes in a converted answer: the JSON tool's call as text, and calls past the first. */
interface AnswerShape {
  tool: JsonTool | null;
  isOneCall: boolean;
}

function streamTransform(converter: ChatConverter, model: string, { tool, isOneCall }: AnswerShape) {
  const raw = converter.createStreamTransform(model);
  const transform = isOneCall ? firstToolCallStream(raw) : raw;
  return tool ? jsonFromToolStream(transform, tool) : transform;
}

const withoutN = ({ n: _n, ...body }: Json): Json => body;

/** The merged answer of a fan-out: streamed to the client, or collected into one completion with a choice per call. */
async function fanOutAnswer(
  rc: ResponseContext,
  spec: ChatSpec,
  scanned: ChatSpec,
  calls: number,
  fan: Parameters<typeof fanOutStream>[2],
): Promise<Delivery> {
  const { body, usage } = await fanOutStream(rc, calls, fan);
  // The merged stream bills the calls' own usage (fan-out.ts): nothing is counted for it here.
  const merged: ResponseContext = {
    ...rc,
    response: { ...rc.response!, body: body as unknown as NonNullable<ResponseContext['response']>['body'] },
    countPromptTokens: () => 0,
  };
  // A per-call price is paid per upstream call.
  if (spec.isStream) return { ...(await streamAnswer(merged, 'sse', mergedHandler(sinkFor(scanned, rc), usage))), calls };
  return { ...(await aggregateStream(merged, spec, 'sse', (sink) => mergedHandler(guarded(scanned, sink), usage))), calls };
}

/** The body with the stop sequences the upstream is sent (none: no `stop`). */
const withStops = ({ stop: _stop, ...body }: Json, stops: string[]): Json => (stops.length > 0 ? { ...body, stop: stops } : body);

/** Streams an upstream that only streams (or is made to) into one answer for a non-stream client. */
async function aggregateStream(
  rc: ResponseContext,
  spec: ChatSpec,
  framing: DecoderFraming,
  handlerFor: (sink: ChunkSink) => EventHandler,
): Promise<Delivery> {
  const aggregate = createChunkAggregate(rc.model);
  const handler = handlerFor(aggregate.sink);
  const collected = await streamAnswer(rc, framing, { ...handler, close: () => '' }, { isCollected: true });
  const completion = aggregate.completion(collected.usage);
  const body = JSON.stringify(spec.inbound ? spec.inbound.fromOpenAI(completion, rc.model, collected.usage) : completion);
  return { ...collected, send: () => rc.exchange.send(200, 'application/json; charset=utf-8', body), answer: body };
}

function planOpenAiWire(adapter: ProviderAdapter, asked: ChatSpec, channel: RelayChannel, call: ChannelCall): UpstreamBody {
  // openAiBody sends the same stopsForUpstream.
  const spec = asked.stopSequences
    ? {
        ...asked,
        namesUpstreamStop: namesUpstreamStop(
          asked.stopSequences,
          stopsForUpstream(asked.stopSequences, adapter, null, call.upstreamModel),
          null,
          call.upstreamModel,
        ),
      }
    : asked;
  const body = spec.openAiBody(channel, call.upstreamModel);
  const inbound = spec.inbound;
  if (!inbound && !spec.completionGuard) return { kind: 'json', value: body };
  if (spec.stopSequences && !spec.isStream) {
    // Asked streaming (openAiBody), scanned, and answered whole.
    const respond = (rc: ResponseContext) =>
      aggregateStream(rc, spec, 'sse', (sink) => openAiWireHandler(adapter.chatStream.createTransform(), guarded(spec, sink)));
    return { kind: 'json', value: body, respond };
  }
  const respond = spec.isStream
    ? (rc: ResponseContext) => streamAnswer(rc, 'sse', openAiWireHandler(adapter.chatStream.createTransform(), sinkFor(spec, rc)))
    : (rc: ResponseContext) =>
        sendJsonAnswer(rc, ({ json }) => {
          const completion = guardedCompletion(spec, json ?? {});
          const usage = usageOr(adapter.chat.readUsage(json ?? {}), rc, completion);
          return { body: inbound ? inbound.fromOpenAI(completion, rc.model, usage) : completion, usage };
        });
  return { kind: 'json', value: body, respond };
}

/**
 * Chooses how one channel serves a chat-like request: native pass-through when the channel speaks
 * the client's format, the provider's converter when its wire is not OpenAI's, else the OpenAI
 * wire (plain OpenAI clients keep the pass-through fast path: no responder).
 */
export function planChat(asked: ChatSpec) {
  return (channel: RelayChannel, call: ChannelCall): UpstreamBody | Promise<UpstreamBody> => {
    const adapter = channel.adapter!;
    // Completions checked for sensitive words are read as OpenAI chunks: no native pass-through then.
    const guard = sensitiveGuard(call.options);
    const spec = guard?.checksCompletion ? { ...asked, completionGuard: guard } : asked;
    const native = spec.completionGuard ? null : nativeOf(adapter, spec, call.upstreamModel);
    if (native) return planNative(native, spec, channel, call);
    // A previous_response_id the gateway did not keep: only a channel that keeps responses itself knows it.
    if (spec.inbound?.wire === 'responses') unresolvedPreviousId(spec.nativeBody);
    const converter = spec.endpoint === 'chat' ? adapter.chatConverter : adapter.completionsConverter;
    if (converter) return planConverted(converter, spec, channel, call);
    return planOpenAiWire(adapter, spec, channel, call);
  };
}
