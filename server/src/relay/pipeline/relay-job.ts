import type { Usage } from '../billing/quota.js';
import type { ProviderAdapter, RelayEndpoint, RequestOptions } from '../providers/types.js';
import type { RelayChannel } from '../routing/channel-index.js';
import type { ChannelCall, UpstreamBody } from '../upstream/dispatch.js';

/** One relay request, described by its endpoint module. */
export interface RelayJob {
  /**
   * Set by the chat-like endpoints whose answers the response cache may keep (relay/cache/): the
   * client's body (the key) and its temperature (in the format's own field). Absent: never cached.
   */
  responseCache?: { body: Record<string, unknown>; temperature: unknown };
  endpoint: RelayEndpoint;
  model: string;
  isStream: boolean;
  clientWantsUsage: boolean;
  /** Upper estimate of the prompt's tokens, for the hold (jobs/json-body.ts estimatePromptTokens). */
  promptTokens: number;
  maxTokens: number;
  /**
   * Lowers the output limit sent upstream to `tokens` (max_tokens or the format's own field), when the
   * balance pays for no more (ledger/hold-policy.ts). Jobs without generated text have none.
   */
  capOutput?(tokens: number): void;
  /** Calls billed for per-call models (images: n). */
  calls: number;
  /** Answers asked for (chat `n`, Gemini's `candidateCount`): the hold covers each (ledger/hold-policy.ts). */
  answers?: number;
  /** The request for one channel (json/form on the OpenAI wire, or a built request with its responder). */
  buildBody(channel: RelayChannel, call: ChannelCall): UpstreamBody | Promise<UpstreamBody>;
  /** Client headers forwarded upstream (anthropic-version, anthropic-beta). */
  clientHeaders?: Record<string, string>;
  /** Per-request URL values (Azure api-version from the query). */
  requestOptions?: RequestOptions;
  /** The prompt's text, checked for sensitive words before any upstream call (sensitive/guard.ts). */
  promptText?(): string;
  /**
   * The request's messages as the client sent them (chat formats): a reference, read only for a trace
   * that captures message content (gen_ai.input.messages); other jobs' prompt is promptText's.
   */
  messages?: unknown;
  /** Exact prompt count with the tokenizer; only used when the upstream reports no usage. */
  countPromptTokens(): number;
  /**
   * Optional fast path: usage read from the raw JSON response without parsing all of it; undefined
   * when it cannot tell (then the body is parsed and readUsage runs).
   */
  readUsageFromBytes?(adapter: ProviderAdapter, body: Buffer): Usage | undefined;
  /** Usage of a successful non-stream response (JSON already parsed, or null for binary). */
  readUsage(adapter: ProviderAdapter, response: Record<string, unknown> | null): Usage | null;
  /** Completion tokens of a non-stream response without usage. */
  countCompletionTokens?(response: Record<string, unknown>): number;
  /**
   * The usage of a non-stream answer passed through as it came, read by the job from its bytes and
   * content type (transcriptions: text, srt and vtt answers are not JSON). When present it replaces
   * readUsageFromBytes, readUsage and countCompletionTokens there.
   */
  readAnswerUsage?(adapter: ProviderAdapter, answer: { bytes: Buffer; contentType: string }): Usage;
}
