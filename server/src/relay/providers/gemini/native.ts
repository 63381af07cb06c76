import type { Usage } from '../../billing/quota.js';
import type { ChatCall, NativeWire, StreamEvent, UpstreamRequest } from '../types.js';
import { geminiChatUrl, geminiHeaders } from './api.js';
import { readParts } from './chat.js';
import { throwIfStreamError } from './errors.js';
import { versionFor } from './settings.js';
import { readGeminiUsage } from './usage.js';
import type { Json } from '@modelgate/shared';

/** A Gemini-format client's body sent unchanged; only the model (in the URL) is the mapped one. */
export function buildNativeGeminiRequest(body: Json, call: ChatCall): UpstreamRequest {
  const model = call.upstreamModel;
  return {
    url: geminiChatUrl(call.target.baseURL, versionFor(call.options, model), model, call.isStream),
    headers: geminiHeaders(call.target),
    body,
  };
}

/** The text (answer, thoughts, function calls) one GenerateContentResponse adds. */
export function textOfResponse(json: Json): string {
  let text = '';
  for (const candidate of (Array.isArray(json.candidates) ? json.candidates : []) as Json[]) {
    const parts = readParts((candidate.content as Json | undefined)?.parts);
    text += parts.reasoning + parts.text + parts.toolCalls.map((call) => call.function.name + call.function.arguments).join('');
  }
  return text;
}

/** Reads text and cumulative usage from native Gemini stream events (the last usage wins). */
export function createGeminiUsageReader() {
  let usage: Usage | null = null;
  return {
    onEvent(event: StreamEvent): { usage: Usage | null; text: string } {
      let json: Json;
      try {
        json = JSON.parse(event.data) as Json;
      } catch {
        return { usage, text: '' };
      }
      throwIfStreamError(json);
      usage = readGeminiUsage(json.usageMetadata) ?? usage;
      return { usage, text: textOfResponse(json) };
    },
  };
}

export const geminiNativeWire: NativeWire = {
  format: 'gemini',
  framing: 'sse',
  buildRequest: buildNativeGeminiRequest,
  readUsage: (json) => readGeminiUsage(json.usageMetadata),
  createUsageReader: createGeminiUsageReader,
  countTokens: {
    // models/{m}:countTokens with the whole request as generateContentRequest (system instruction and tools counted too).
    request(chat: UpstreamRequest): UpstreamRequest {
      const url = chat.url.replace(/:(streamGenerateContent|generateContent)(\?alt=sse)?/, ':countTokens');
      const model = /\/models\/([^:/?]+):countTokens/.exec(url)?.[1] ?? '';
      const body = (chat.body ?? {}) as Record<string, unknown>;
      return { ...chat, url, body: { generateContentRequest: { ...body, model: `models/${decodeURIComponent(model)}` } } };
    },
    read: (json) =>
      typeof json.totalTokens === 'number' && Number.isFinite(json.totalTokens) && json.totalTokens >= 0
        ? Math.floor(json.totalTokens)
        : null,
  },
};
