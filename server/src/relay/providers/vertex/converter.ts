import { claudeToOpenAi } from '../anthropic/response.js';
import { openAiToClaude } from '../anthropic/chat.js';
import { createClaudeStreamTransform } from '../anthropic/chat-stream.js';
import { applyModelHeaders } from '../anthropic/api.js';
import { claudeNativeJsonSchema } from '../anthropic/output-format.js';
import { parseGeminiResponse } from '../gemini/chat.js';
import { geminiStopSequenceLimit, toGeminiRequest } from '../gemini/chat-request.js';
import { createGeminiStreamTransform } from '../gemini/chat-stream.js';
import type { ChatCall, ChatConverter, UpstreamRequest } from '../types.js';
import { isClaudeModel, vertexEndpoint } from './api.js';
import type { Json } from '@modelgate/shared';

export const vertexAnthropicVersion = 'vertex-2023-10-16';

/** OpenAI body → Vertex: Claude models get an Anthropic body without `model`, the rest a Gemini body. */
export async function buildVertexChatRequest(body: Json, call: ChatCall): Promise<UpstreamRequest> {
  if (isClaudeModel(call.upstreamModel)) {
    const claude = openAiToClaude({ ...body, stream: call.isStream }, call.upstreamModel, call.options);
    const model = String(claude.model);
    delete claude.model;
    claude.anthropic_version = vertexAnthropicVersion;
    const { url, headers } = await vertexEndpoint(call.target, model, call.isStream);
    return { url, headers: applyModelHeaders(headers, model, call.options), body: claude };
  }
  const { model, request } = toGeminiRequest(body, call.upstreamModel, call.options);
  const { url, headers } = await vertexEndpoint(call.target, model, call.isStream);
  return { url, headers, body: request };
}

/** Converts by model family: Claude answers with the Anthropic converter, Gemini with the Gemini one. */
export const vertexChatConverter: ChatConverter = {
  framing: 'sse',
  buildRequest: buildVertexChatRequest,
  parseResponse: (json, model) => (isClaudeModel(model) ? claudeToOpenAi(json, model) : parseGeminiResponse(json, model)),
  createStreamTransform: (model) => (isClaudeModel(model) ? createClaudeStreamTransform(model) : createGeminiStreamTransform(model)),
  jsonByTool: (model) => isClaudeModel(model),
  nativeJsonSchema: (schema, model, options) => (isClaudeModel(model) ? claudeNativeJsonSchema(schema, model, options) : null),
  stopSequenceLimit: (model) => (isClaudeModel(model) ? Number.POSITIVE_INFINITY : geminiStopSequenceLimit),
  reportsStopSequence: (model) => isClaudeModel(model),
  isOneAnswerPerCall: (model) => isClaudeModel(model),
};
