import { FormData, request } from 'undici';
import type {
  ChatCall,
  ProviderAdapter,
  RelayEndpoint,
  RequestOptions,
  SendOptions,
  UpstreamRequest,
  UpstreamResponse,
  UpstreamTarget,
} from './types.js';
import type { Json } from '@modelgate/shared';

/**
 * The one upstream request path. Every caller that talks to a provider (the relay's dispatch, the
 * channel test, fetch-models) builds its request here and sends it with `sendUpstream`; an
 * adapter's `api.url/headers` and converters are read in this folder only (an ESLint rule keeps
 * it so).
 */

/** The converter that owns an endpoint's wire when it is not OpenAI's, if any. */
function converterOf(adapter: ProviderAdapter, endpoint: RelayEndpoint) {
  if (endpoint === 'chat') return adapter.chatConverter;
  if (endpoint === 'completions') return adapter.completionsConverter;
  if (endpoint === 'embeddings') return adapter.embeddingsConverter;
  if (endpoint === 'rerank') return adapter.rerankConverter;
  return undefined;
}

/** Whether the endpoint's body is converted to the provider's own wire (its answer then needs the converter too). */
export const isConvertedEndpoint = (adapter: ProviderAdapter, endpoint: RelayEndpoint): boolean =>
  converterOf(adapter, endpoint) !== undefined;

/**
 * An OpenAI-wire request: the adapter's URL and headers for the endpoint, the body as given (an
 * OpenAI body already prepared for the provider, or a multipart form).
 */
export function openAiWireRequest(
  adapter: ProviderAdapter,
  endpoint: RelayEndpoint,
  body: Json | FormData,
  target: UpstreamTarget,
  upstreamModel: string,
  options?: RequestOptions,
): UpstreamRequest {
  return { url: adapter.api.url(endpoint, target, upstreamModel, options), headers: adapter.api.headers(target), body };
}

/**
 * The complete, authenticated request for one operation: the provider's converter when its wire
 * for the endpoint is not OpenAI's (signatures, tokens and the body in its format), else the
 * OpenAI wire. `body` is the canonical OpenAI body (for the OpenAI wire: already prepared).
 */
export async function buildUpstreamRequest(
  adapter: ProviderAdapter,
  endpoint: RelayEndpoint,
  body: Json | FormData,
  call: ChatCall,
  options?: RequestOptions,
): Promise<UpstreamRequest> {
  const converter = converterOf(adapter, endpoint);
  if (converter && !(body instanceof FormData)) return converter.buildRequest(body, call);
  return openAiWireRequest(adapter, endpoint, body, call.target, call.upstreamModel, options);
}

/** `GET` of the provider's OpenAI-shaped model list (`data[].id`). */
export function modelListRequest(adapter: ProviderAdapter, target: UpstreamTarget): UpstreamRequest {
  return { url: adapter.api.url('models', target, ''), headers: adapter.api.headers(target), body: '', method: 'GET' };
}

/** Whether a header set names a content type in any letter case (adapters write `Content-Type` too). */
function hasContentType(headers: Record<string, string>): boolean {
  for (const name in headers) if (name.length === 12 && name.toLowerCase() === 'content-type') return true;
  return false;
}

/** The bytes (or form) a built request sends, and its headers with the content type set. */
export function serializeRequest(built: UpstreamRequest): {
  headers: Record<string, string>;
  payload: string | Uint8Array | FormData | undefined;
} {
  const { headers, body } = built;
  if (built.method === 'GET') return { headers, payload: undefined };
  if (body instanceof FormData) return { headers, payload: body };
  // A string or bytes body goes out unchanged (Bedrock and Hunyuan sign it).
  const payload = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  if (headers['content-type'] === undefined && !hasContentType(headers)) headers['content-type'] = 'application/json';
  return { headers, payload };
}

/** Sends a built request: over the adapter's own transport when it has one (WebSocket), else HTTP. */
export async function sendUpstream(adapter: ProviderAdapter, built: UpstreamRequest, options: SendOptions): Promise<UpstreamResponse> {
  if (adapter.transport) return adapter.transport.send(built, options);
  return sendHttp(built, options);
}

/** An HTTP request of the one path (model lists and balances, which no transport carries). */
function sendHttp(built: UpstreamRequest, options: SendOptions): Promise<UpstreamResponse> {
  const { headers, payload } = serializeRequest(built);
  return request(built.url, {
    method: built.method ?? 'POST',
    headers,
    body: payload as string | undefined,
    dispatcher: options.dispatcher,
    signal: options.signal,
    headersTimeout: options.headersTimeout,
    bodyTimeout: options.bodyTimeout,
  }) as Promise<UpstreamResponse>;
}

const listTimeoutMs = 20_000;
/** A model list or balance larger than this is refused (a hostile or broken upstream). */
const maxListBytes = 8 * 1024 * 1024;

/**
 * GETs a JSON object from the provider (model lists, balances): a non-2xx or a body that is not a
 * JSON object throws an Error whose message (the provider's, read by `parseError`) the admin sees.
 */
export async function getUpstreamJson(
  url: string,
  headers: Record<string, string>,
  target: UpstreamTarget,
  parseError?: (status: number, text: string) => { message: string },
): Promise<Json> {
  const response = await sendHttp(
    { url, headers: { accept: 'application/json', ...headers }, body: '', method: 'GET' },
    { dispatcher: target.dispatcher, headersTimeout: listTimeoutMs, bodyTimeout: listTimeoutMs },
  );
  let text = '';
  for await (const chunk of response.body) {
    text += Buffer.from(chunk).toString('utf8');
    if (text.length > maxListBytes) {
      response.body.dump?.().catch(() => undefined);
      throw new Error('上游返回的内容过大');
    }
  }
  if (response.statusCode < 200 || response.statusCode >= 300)
    throw new Error(parseError?.(response.statusCode, text).message ?? `上游返回状态码 ${response.statusCode}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('上游返回的不是 JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('上游返回的不是 JSON 对象');
  return parsed as Json;
}

/** The non-empty string values of `field` in a list of objects (model names), at most 255 characters each. */
export function namesIn(list: unknown, field: string): string[] {
  if (!Array.isArray(list)) return [];
  return list
    .map((item) => (item && typeof item === 'object' ? (item as Json)[field] : undefined))
    .filter((name): name is string => typeof name === 'string' && name.length > 0 && name.length <= 255);
}
