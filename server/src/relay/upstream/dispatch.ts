import { FormData, type Dispatcher } from 'undici';
import type { AppContext } from '../../context.js';
import { RelayError, UpstreamError, relayErrors, retryAfterOf } from '../errors.js';
import type {
  AdapterOptions,
  RelayEndpoint,
  RequestOptions,
  UpstreamRequest,
  UpstreamResponse,
  UpstreamTarget,
} from '../providers/types.js';
import { openAiWireRequest, sendUpstream, serializeRequest } from '../providers/upstream-request.js';
import type { RelayState } from '../state.js';
import type { RelayChannel } from '../routing/channel-index.js';
import { pickKey } from '../routing/admission.js';
import { ChannelBusy, runAttempts, type AttemptResult, type AttemptSlots, type AttemptTrace } from '../routing/attempt-loop.js';

import type { Responder } from '../pipeline/respond.js';
import { openAiPassThrough } from '../providers/openai/passthrough.js';
import { UpstreamAnswer, maxErrorBody, type AbortSource, type AnswerHead } from './upstream-answer.js';

/**
 * What is sent to one channel: an OpenAI-wire JSON body or form (URL and headers from the adapter's
 * api), or a complete request an adapter built (converted or native wire). `respond`, when set,
 * handles the answer (conversion, native pass-through, inbound formats); without it the request is
 * the OpenAI-wire pass-through, answered by providers/openai/passthrough.ts.
 */
export type UpstreamBody = (
  { kind: 'json'; value: Record<string, unknown> } | { kind: 'form'; value: FormData } | { kind: 'request'; value: UpstreamRequest }
) & {
  respond?: Responder;
  /** Upstream calls this body makes when more than one (a fan-out, jobs/fan-out.ts): each takes the channel's slots. */
  calls?: number;
};

/** What a job needs to build one channel's request. */
export interface ChannelCall {
  upstreamModel: string;
  target: UpstreamTarget;
  options: AdapterOptions;
  requestOptions?: RequestOptions;
}

export interface UpstreamCall {
  endpoint: RelayEndpoint;
  /** Model the client asked for (selection and billing use it). */
  model: string;
  group: string;
  /** Cross-group retry: the groups failover continues into (routing/auto-group.ts crossRetryGroups). */
  nextGroups?: readonly string[];
  pinnedChannelId: number | null;
  /** Builds the body for one channel, given the model after the channel's mapping; built right before sending. */
  buildBody(channel: RelayChannel, call: ChannelCall): UpstreamBody | Promise<UpstreamBody>;
  /** The client asked for a stream: a 2xx pass-through answer is streamed, not buffered. */
  isStream: boolean;
  signal: AbortSignal & AbortSource;
  options: AdapterOptions;
  /** Client headers passed to the upstream (anthropic-version, anthropic-beta). */
  clientHeaders?: Record<string, string>;
  /** Per-request URL values (Azure api-version). */
  requestOptions?: RequestOptions;
  /**
   * Answers the client from a successful upstream response, inside the failover loop: an
   * UpstreamError it throws means nothing reached the client yet (e.g. a stream whose first event
   * is an error), so the channel counts as failed and another one is tried.
   */
  deliver?(success: UpstreamSuccess): Promise<void> | void;
  /** Filled in by the attempt loop, for the error log of a failed call. */
  trace?: AttemptTrace;
}

/**
 * A 2xx answer and the responder that gives it to the client: for the OpenAI-wire pass-through, the
 * answer on undici's dispatch API with its head (and whole body unless it streams); for a request an
 * adapter built, undici.request's response.
 */
export type UpstreamReply =
  | { respond: Responder; response: UpstreamResponse; answer?: undefined; head?: undefined }
  | { respond: Responder; response?: undefined; answer: UpstreamAnswer; head: AnswerHead };

export type UpstreamSuccess = UpstreamReply & {
  channel: RelayChannel;
  upstreamModel: string;
  /** Channel ids tried, in order (admin_info.use_channel). */
  tried: number[];
};

/** Channel types that can serve Claude (Anthropic, AWS Claude, Vertex AI): only they get the client's anthropic-* headers. */
const claudeChannelTypes = new Set([14, 33, 41]);

export function targetOf(
  channel: RelayChannel,
  dispatcher: Dispatcher,
  clientHeaders?: Record<string, string>,
  key = pickKey(channel),
): UpstreamTarget {
  const headers: Record<string, string> = clientHeaders && claudeChannelTypes.has(channel.type) ? { ...clientHeaders } : {};
  if (channel.type === 1 && channel.organization) headers['OpenAI-Organization'] = channel.organization;
  return { baseURL: channel.baseURL, key, headers, other: channel.other, dispatcher };
}

async function readLimited(body: UpstreamResponse['body']): Promise<string> {
  let text = '';
  for await (const chunk of body) {
    if (text.length < maxErrorBody) text += (chunk as Buffer).toString('utf8');
  }
  return text.slice(0, maxErrorBody);
}

const unsupported = (channel: RelayChannel) => new UpstreamError(400, `渠道 #${channel.id} 不支持此接口`, 'unsupported_endpoint', '');

/** Origin and path of an upstream URL, cached (a handful of distinct URLs serve all traffic). */
const urlParts = new Map<string, { origin: string; path: string }>();
function partsOf(url: string): { origin: string; path: string } {
  let parts = urlParts.get(url);
  if (!parts) {
    const parsed = new URL(url);
    parts = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (urlParts.size >= 1000) urlParts.clear();
    urlParts.set(url, parts);
  }
  return parts;
}

/**
 * A built request with its JSON body already turned into text, so nothing can fail in serialising
 * once the connection is being made (a transport adapter, which frames the body itself, keeps it).
 */
function withSerializedBody(adapter: NonNullable<RelayChannel['adapter']>, built: UpstreamRequest): UpstreamRequest {
  const { body } = built;
  if (adapter.transport || built.method === 'GET' || typeof body === 'string' || body instanceof Uint8Array || body instanceof FormData)
    return built;
  return { ...built, body: JSON.stringify(body) };
}

/** The gateway could not build or serialise a channel's request: logged with its cause, answered as the request's fault. */
function requestBuildFailed(channel: RelayChannel, cause: unknown): RelayError {
  const error = new RelayError(400, 'request_build_failed', `请求无法转换为渠道 #${channel.id} 的上游格式`);
  error.cause = cause;
  return error;
}

/** Sends the pass-through request on the dispatch API; its head (and buffered body) resolves later. */
function dispatchAnswer(
  upstream: Upstream,
  url: string,
  headers: Record<string, string>,
  payload: string | FormData | Uint8Array,
  call: UpstreamCall,
): UpstreamAnswer {
  const answer = new UpstreamAnswer(call.signal, call.isStream, upstream.answerBudget);
  const { origin, path } = partsOf(url);
  upstream.dispatcher.dispatch({ origin, path, method: 'POST', headers, body: payload as string }, answer);
  return answer;
}

/** The relay's connection pools and the budget of whole answers being read. */
type Upstream = Pick<RelayState, 'dispatcher' | 'answerBudget'>;

async function callChannel(
  channel: RelayChannel,
  key: string,
  call: UpstreamCall,
  upstream: Upstream,
  tried: number[],
  slots: AttemptSlots,
): Promise<UpstreamSuccess> {
  const { dispatcher } = upstream;
  const adapter = channel.adapter;
  if (!adapter || !adapter.endpoints.has(call.endpoint)) throw unsupported(channel);
  const upstreamModel = channel.modelMapping?.[call.model] || call.model;
  const target = targetOf(channel, dispatcher, call.clientHeaders, key);
  // Building and serialising happen inside the gateway: a failure there is the gateway's (or the
  // request's), never the channel's, so it is not an UpstreamError and counts against no channel.
  let body: UpstreamBody;
  let built: UpstreamRequest;
  try {
    const building = call.buildBody(channel, { upstreamModel, target, options: call.options, requestOptions: call.requestOptions });
    body = building instanceof Promise ? await building : building;
    // The one request path (providers/upstream-request.ts): a request the job built, or the OpenAI wire.
    built = withSerializedBody(
      adapter,
      body.kind === 'request'
        ? body.value
        : openAiWireRequest(adapter, call.endpoint, body.value, target, upstreamModel, call.requestOptions),
    );
  } catch (error) {
    if (error instanceof RelayError) throw error;
    throw requestBuildFailed(channel, error);
  }
  if (call.signal.aborted) throw relayErrors.clientClosed();
  // A fan-out's other calls count against the channel's limits too, taken before anything is sent.
  if (body.calls !== undefined && body.calls > 1 && channel.limits !== null && !(await slots.more(body.calls - 1))) throw new ChannelBusy();
  // Tracing on: the attempt span's traceparent goes upstream with the request (relay/tracing/call-span.ts).
  const spans = call.trace ? call.trace.span : null;
  if (spans !== null) spans.sending(built.headers, built.url, upstreamModel);
  if (!body.respond) {
    // The OpenAI pass-through on undici's dispatch API (a transport adapter converts every endpoint it serves).
    const { headers, payload } = serializeRequest(built);
    let head: AnswerHead;
    let answer: UpstreamAnswer;
    try {
      // A channel whose base URL is not a URL (a migrated or hand-edited row) fails here, as the
      // channel's failure: the request goes on to another channel.
      answer = dispatchAnswer(upstream, built.url, headers, payload!, call);
      head = await answer.head;
    } catch (error) {
      throw connectionFailure(call, error);
    }
    if (head.statusCode >= 200 && head.statusCode < 300) return { channel, upstreamModel, tried, answer, head, respond: openAiPassThrough };
    throw upstreamFailure(adapter, head.statusCode, head.body ? head.body.toString('utf8') : '', (name) => head.retryAfter?.[name]);
  }
  let response: UpstreamResponse;
  try {
    response = await sendUpstream(adapter, built, { dispatcher, signal: call.signal });
  } catch (error) {
    throw connectionFailure(call, error);
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return { channel, upstreamModel, tried, response, respond: body.respond };
  const header = (name: string) => {
    const value = response.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  throw upstreamFailure(adapter, response.statusCode, await readLimited(response.body).catch(() => ''), header);
}

/** A request that got no answer: the client left (499), or the upstream could not be reached (retryable). */
function connectionFailure(call: UpstreamCall, error: unknown): RelayError {
  if (call.signal.aborted) return relayErrors.clientClosed();
  // Already the channel's failure (an answer past maxAnswerBytes), or the instance's (answers busy).
  if (error instanceof UpstreamError || error instanceof RelayError) return error;
  return new UpstreamError(0, `上游连接失败：${(error as Error).message}`, null, '');
}

export function upstreamFailure(
  adapter: NonNullable<RelayChannel['adapter']>,
  status: number,
  text: string,
  header: (name: string) => string | undefined = () => undefined,
): UpstreamError {
  const parsed = adapter.errors.parse(status, text);
  const failure = new UpstreamError(parsed.status ?? status, parsed.message, parsed.code, text);
  failure.retryAfterMs = retryAfterOf(status, header, text);
  return failure;
}

/**
 * Picks a channel and calls it through the one attempt loop (routing/attempt-loop.ts); on a
 * retryable failure (an error status, or a stream that fails before its first byte reaches the
 * client) tries up to RetryTimes other channels. A channel that cannot serve the endpoint is skipped.
 */
export function dispatchWithFailover(ctx: AppContext, relay: RelayState, call: UpstreamCall): Promise<AttemptResult<UpstreamSuccess>> {
  // No async frame of its own: this is every request (the loop awaits the attempt and its delivery).
  return runAttempts(ctx, relay, {
    group: call.group,
    nextGroups: call.nextGroups,
    model: call.model,
    pinnedChannelId: call.pinnedChannelId,
    isCancelled: () => call.signal.aborted,
    refusal: (channel) => (channel.adapter?.endpoints.has(call.endpoint) ? null : unsupported(channel)),
    attempt: (channel, key, tried, slots) => callChannel(channel, key, call, relay, tried, slots),
    deliver: call.deliver,
    failureMessage: 'upstream request failed',
    trace: call.trace,
  });
}
