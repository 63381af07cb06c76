import type { Dispatcher, FormData } from 'undici';
import type { Usage } from '../billing/quota.js';

/** The relay endpoints a provider may serve. */
export type RelayEndpoint =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'moderations'
  | 'images'
  | 'image-edits'
  | 'image-variations'
  | 'speech'
  | 'transcriptions'
  | 'translations'
  | 'rerank';

/** What an adapter is given to reach the upstream; it never sees a channel row. */
export interface UpstreamTarget {
  baseURL: string;
  key: string;
  /** Extra headers (organization, per-provider extras) decided by the caller. */
  headers: Record<string, string>;
  /** The channel's `other` field (api-version, region, ...), as given. */
  other: string;
  dispatcher: Dispatcher;
}

/** Field the console renders on the channel form for this type. */
export interface ExtraField {
  name: 'other' | 'openai_organization' | 'base_url';
  label: string;
  placeholder?: string;
  required?: boolean;
}

export interface ProviderMeta {
  /** Channel type number of the product spec. */
  type: number;
  displayName: string;
  keyHint: string;
  defaultBaseURL: string;
  extraFields: ExtraField[];
  defaultModels: string[];
}

/** Per-request values an adapter's URL may use (Azure: the client's `?api-version=`). */
export interface RequestOptions {
  apiVersion?: string;
}

/** Result of looking at one parsed stream event. */
export interface ChunkVerdict {
  /** Text the event adds to the completion (for counting when usage is missing). */
  text: string;
  /** Usage carried by this event, if any. */
  usage: Usage | null;
  /** True when the event only carries usage (OpenAI's final `choices: []` chunk). */
  isUsageOnly: boolean;
  /** True when the adapter changed the chunk object, so it must be re-serialized. */
  isModified: boolean;
}

/** Stateful per-request transform applied to each parsed SSE data event. */
export interface ChunkTransform {
  onChunk(chunk: Record<string, unknown>): ChunkVerdict;
  /**
   * True when onChunk never changes a chunk, keeps no state and only reads text and usage (OpenAI
   * wire). The pipeline then passes events that do not contain `"usage"` through without parsing
   * them, and reads their text only if the stream ends without usage.
   */
  isReadOnly?: boolean;
}

/**
 * The chat wire formats ModelGate speaks, inbound (clients) and outbound (channels). 'responses'
 * is the OpenAI Responses API, only ever a native pass-through format (type-1 OpenAI channels).
 */
export type WireFormat = 'openai' | 'claude' | 'gemini' | 'responses';

/**
 * How an upstream stream is framed on the wire. 'sse-raw' is SSE as Zhipu v3 bends it: values kept
 * verbatim (its `data:` lines are raw text, a leading space is text), extra fields such as `meta:`
 * in `StreamEvent.fields`, and a bare JSON object line (an error answering a stream request) as an
 * event of its own (`event: null`).
 */
export type StreamFraming = 'sse' | 'sse-raw' | 'ndjson' | 'aws-eventstream';

/**
 * One decoded upstream stream event: for SSE the `event:` name (or null) and the joined `data:`
 * text; for NDJSON one line; for the AWS event stream the decoded payload's JSON text.
 */
export interface StreamEvent {
  event: string | null;
  data: string;
  /** 'sse-raw' only: the event's other fields (not event/data/id/retry) by name, last value wins. */
  fields?: Record<string, string>;
}

/** An upstream request an adapter built: the URL, extra headers and the body to send. */
export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | string | Uint8Array | FormData;
  /** POST unless set (model lists, balances: GET without a body). */
  method?: 'GET' | 'POST';
}

/**
 * An upstream's answer as the relay reads it: undici's response, or what a non-HTTP transport
 * (iFlytek Spark's WebSocket) makes of its frames. `body` is read once: iterated, or text/arrayBuffer.
 */
export interface UpstreamResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Buffer> & { text(): Promise<string>; arrayBuffer(): Promise<ArrayBuffer>; dump?(): Promise<void> };
}

/** How one upstream call is sent and answered; timeouts in ms (0: none). */
export interface SendOptions {
  dispatcher: Dispatcher;
  signal?: AbortSignal;
  headersTimeout?: number;
  bodyTimeout?: number;
}

/**
 * A provider that is not reached by an HTTP request (iFlytek Spark: a signed WebSocket). `send`
 * opens the exchange for a built request and answers in the framing of the adapter's converter
 * (Spark: one NDJSON line per frame), so the relay's readers stay the same.
 */
export interface UpstreamTransport {
  send(request: UpstreamRequest, options: SendOptions): Promise<UpstreamResponse>;
}

/** Read access to option values an adapter may need (claude.*, gemini.* settings). */
export interface AdapterOptions {
  get(key: string): string;
  json<T>(key: string): T;
  number(key: string): number;
  bool(key: string): boolean;
}

export interface ChatCall {
  /** Model name sent upstream (after the channel's model_mapping). */
  upstreamModel: string;
  isStream: boolean;
  target: UpstreamTarget;
  options: AdapterOptions;
  /** Per-request values from the client's query (`?api-version=`: Azure, iFlytek Spark). */
  requestOptions?: RequestOptions;
}

/** What a converting stream transform yields for one upstream event (or at the end). */
export interface ConvertedEvents {
  /** OpenAI `chat.completion.chunk` objects to pass on, in order. */
  chunks: Array<Record<string, unknown>>;
  /** Completion text the event added (for counting when usage is missing). */
  text: string;
  /** Usage known after this event (cumulative; the last non-null value wins). */
  usage: Usage | null;
}

/**
 * For providers whose chat wire is not OpenAI's: converts the canonical request (an OpenAI chat
 * completion body) to the provider's request, and the provider's answer back to OpenAI shapes.
 */
export interface ChatConverter {
  framing: StreamFraming;
  buildRequest(body: Record<string, unknown>, call: ChatCall): UpstreamRequest | Promise<UpstreamRequest>;
  /** Provider JSON response → OpenAI `chat.completion` and its usage. */
  parseResponse(json: Record<string, unknown>, model: string): { completion: Record<string, unknown>; usage: Usage | null };
  /** A stateful per-request transform from provider stream events to OpenAI chunks. */
  createStreamTransform(model: string): { onEvent(event: StreamEvent): ConvertedEvents; finish(): ConvertedEvents };
  /**
   * Set when the upstream cannot stream (PaLM). When the client streams, the pipeline still sends
   * `buildRequest` (which ignores `isStream`) and reads the whole JSON answer; it then feeds that
   * body text as ONE synthetic event `{ event: null, data: <response text> }` to
   * `createStreamTransform(model).onEvent`, then calls `finish()`, and frames the chunks as SSE.
   */
  isStreamingUnsupported?: boolean;
  /**
   * Set when the upstream has no JSON mode for this model (Claude): a `response_format` becomes a
   * tool the model must call and its arguments the answer's text (providers/shared/structured-output.ts).
   */
  jsonByTool?(upstreamModel: string): boolean;
  /**
   * Set when some of those models take the schema themselves (Claude's `output_config.format`): the
   * schema as this model takes it, or null when the model or the schema needs the tool after all.
   */
  nativeJsonSchema?(schema: Record<string, unknown>, upstreamModel: string, options: AdapterOptions): Record<string, unknown> | null;
  /** Set when the upstream only streams for this call (Dify agent apps): non-stream clients get the aggregate. */
  isStreamOnly?(call: ChatCall): boolean;
  /** How many stop sequences the upstream takes for this model; absent: the request's `stop` is not sent on (see jobs/stop-sequences.ts). */
  stopSequenceLimit?(upstreamModel: string): number;
  /** Set when the upstream's answer says which stop sequence ended it (Claude's `stop_sequence`). */
  reportsStopSequence?(upstreamModel: string): boolean;
  /** Set when the upstream makes one answer per call (Claude): `n` > 1 is served by n calls (jobs/fan-out.ts). */
  isOneAnswerPerCall?(upstreamModel: string): boolean;
}

/** For providers whose embeddings wire is not OpenAI's (Gemini batchEmbedContents). */
export interface EmbeddingsConverter {
  /** OpenAI embeddings body → the provider's request. */
  buildRequest(body: Record<string, unknown>, call: ChatCall): UpstreamRequest | Promise<UpstreamRequest>;
  /** Provider JSON → OpenAI `{object:'list', data, model, usage}`; usage null when not reported. */
  parseResponse(json: Record<string, unknown>, model: string): { response: Record<string, unknown>; usage: Usage | null };
}

/** For providers whose rerank wire is not Jina's (Cohere), or that need the body trimmed (Jina). */
export interface RerankConverter {
  buildRequest(body: Record<string, unknown>, call: ChatCall): UpstreamRequest | Promise<UpstreamRequest>;
  /** Provider JSON → `{results[...]}`; `calls` = billed units for per-call prices (Cohere search units). */
  parseResponse(json: Record<string, unknown>, model: string): { response: Record<string, unknown>; usage: Usage | null; calls?: number };
}

/**
 * For pass-through: a client speaking the provider's own format (e.g. the Anthropic SDK on a Claude
 * channel) is relayed unchanged but for the model name, and usage is read from the native answer.
 */
export interface NativeWire {
  format: WireFormat;
  framing: StreamFraming;
  /**
   * When present and false for the (mapped) model, the pipeline converts instead of passing through
   * (Vertex: Gemini-format clients pass through on Gemini models only, not on claude-*).
   */
  accepts?(model: string): boolean;
  buildRequest(body: Record<string, unknown>, call: ChatCall): UpstreamRequest | Promise<UpstreamRequest>;
  readUsage(json: Record<string, unknown>): Usage | null;
  /** Stateful usage reader over native stream events; returns the usage known so far (or null). */
  createUsageReader(): { onEvent(event: StreamEvent): { usage: Usage | null; text: string } };
  /**
   * The provider's own token counting (Anthropic count_tokens, Gemini countTokens): the count request
   * made from a chat request already built in this wire, and the count read from its answer.
   */
  countTokens?: {
    request(chat: UpstreamRequest): UpstreamRequest;
    read(json: Record<string, unknown>): number | null;
  };
}

export interface ProviderAdapter {
  slug: string;
  /** The chat wire the provider speaks; 'openai' adapters use `chat`/`chatStream` in place. */
  wire?: WireFormat;
  /** Set when `wire` is not 'openai'. */
  chatConverter?: ChatConverter;
  /** Set when clients of the provider's own format may be passed through. */
  native?: NativeWire;
  meta: ProviderMeta;
  endpoints: ReadonlySet<RelayEndpoint>;
  api: {
    url(endpoint: RelayEndpoint | 'models', target: UpstreamTarget, model: string, request?: RequestOptions): string;
    headers(target: UpstreamTarget): Record<string, string>;
  };
  chat: {
    /** Adapts the OpenAI-shaped body in place for this provider. */
    prepareBody(body: Record<string, unknown>): void;
    readUsage(response: Record<string, unknown>): Usage | null;
    /**
     * Optional fast path: the usage of a JSON response read from its raw bytes without parsing all
     * of it; undefined when it cannot tell (the pipeline then parses and calls readUsage).
     */
    readUsageFromBytes?(body: Buffer): Usage | undefined;
    /** How many stop sequences the upstream takes for this model (absent: OpenAI's 4; see jobs/stop-sequences.ts). */
    stopSequenceLimit?(upstreamModel: string): number;
  };
  chatStream: {
    /** Whether `stream_options.include_usage` may be sent upstream. */
    supportsStreamUsage: boolean;
    createTransform(): ChunkTransform;
  };
  embeddings: { readUsage(response: Record<string, unknown>): Usage | null };
  /**
   * Reads an error answer. `status`, when set, is the status the failure stands for where the
   * provider's HTTP status misstates it (Gemini answers a bad key with 400 API_KEY_INVALID: 401).
   */
  errors: { parse(status: number, bodyText: string): { message: string; code: string | null; status?: number } };
  /** Set when `embeddings` requests must be converted (the OpenAI body is not sent as is). */
  embeddingsConverter?: EmbeddingsConverter;
  /** Set when `completions` requests must be converted (Ollama /api/generate); same shape as chat. */
  completionsConverter?: ChatConverter;
  /** Set when `rerank` requests must be converted or trimmed (Cohere, Jina). */
  rerankConverter?: RerankConverter;
  /** Channel form check (create/update): an error message, or null when the values are usable. */
  validateChannel?(key: string, other: string, baseURL: string): string | null;
  /** Model names for "fetch models" when the list is not OpenAI's `GET /v1/models` `data[].id`. */
  fetchModels?(target: UpstreamTarget): Promise<string[]>;
  /** Remaining balance in US$ (update_balance), when the provider exposes it. */
  fetchBalance?(target: UpstreamTarget): Promise<number>;
  /** Set when the provider is not reached over HTTP (upstream-request.ts sendUpstream uses it). */
  transport?: UpstreamTransport;
  /**
   * The channel test of a type with neither chat nor embeddings (task channels): one free request
   * that proves the base URL and key work; throws an UpstreamError when they do not.
   */
  checkHealth?(target: UpstreamTarget): Promise<void>;
}
