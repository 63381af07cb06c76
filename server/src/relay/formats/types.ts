import type { Usage } from '../billing/quota.js';
import type { WireFormat } from '../providers/types.js';

/**
 * An inbound API format other than OpenAI chat (Anthropic Messages, Gemini generateContent,
 * OpenAI Responses). The relay works on one canonical request, an OpenAI chat completion body:
 * an inbound format converts its request to it, and converts OpenAI answers (non-stream, and
 * stream chunk by chunk) back to its own shape. When the chosen channel speaks the inbound format
 * natively (`adapter.native.format === wire`), the pipeline passes the request through instead.
 */
export interface InboundFormat {
  /** The wire this format is; 'openai' for the Responses API (its channels are OpenAI ones). */
  wire: WireFormat | 'responses';
  /** Model named by the request (path or body). */
  modelOf(body: Record<string, unknown>, params: Record<string, string>): string;
  isStream(body: Record<string, unknown>, params: Record<string, string>): boolean;
  /** Inbound request → canonical OpenAI chat body (model included, `stream` set). */
  toOpenAI(body: Record<string, unknown>, params: Record<string, string>): Record<string, unknown>;
  /** OpenAI `chat.completion` → this format's response body. */
  fromOpenAI(completion: Record<string, unknown>, model: string, usage: Usage): unknown;
  /**
   * Stateful: OpenAI chunks → this format's stream text (complete SSE frames). `promptTokens` counts
   * the request's prompt locally, for formats that state it before the upstream's usage comes
   * (Anthropic's message_start).
   */
  createStreamEncoder(
    model: string,
    promptTokens?: () => number,
  ): {
    onChunk(chunk: Record<string, unknown>): string;
    /** Closing frames, with the final usage. */
    finish(usage: Usage): string;
  };
  /** Lowers the request's own output limit to `tokens` (the balance pays for no more: ledger/hold-policy.ts). */
  capOutput(body: Record<string, unknown>, tokens: number): void;
  /** This format's error body for a status and message. */
  errorBody(status: number, message: string, code: string | null): unknown;
}
