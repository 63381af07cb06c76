import type { ChatCall, ChatConverter, UpstreamRequest } from '../types.js';
import { geminiChatUrl, geminiHeaders } from './api.js';
import { parseGeminiResponse } from './chat.js';
import { geminiStopSequenceLimit, toGeminiRequest } from './chat-request.js';
import { createGeminiStreamTransform } from './chat-stream.js';
import { versionFor } from './settings.js';

/** OpenAI chat body → Gemini generateContent request on the Gemini API (type 24). */
export function buildGeminiChatRequest(body: Record<string, unknown>, call: ChatCall): UpstreamRequest {
  const { model, request } = toGeminiRequest(body, call.upstreamModel, call.options);
  return {
    url: geminiChatUrl(call.target.baseURL, versionFor(call.options, model), model, call.isStream),
    headers: geminiHeaders(call.target),
    body: request,
  };
}

export const geminiChatConverter: ChatConverter = {
  framing: 'sse',
  buildRequest: buildGeminiChatRequest,
  parseResponse: parseGeminiResponse,
  createStreamTransform: createGeminiStreamTransform,
  stopSequenceLimit: () => geminiStopSequenceLimit,
};
