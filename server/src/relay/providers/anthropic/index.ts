import type { ChatCall, ChatConverter, ProviderAdapter, ProviderMeta, UpstreamRequest } from '../types.js';
import { anthropicHeaders, anthropicUrl, applyModelHeaders } from './api.js';
import { openAiToClaude } from './chat.js';
import { createClaudeStreamTransform } from './chat-stream.js';
import { parseClaudeError } from './errors.js';
import { claudeNativeWire } from './native.js';
import { claudeNativeJsonSchema } from './output-format.js';
import { claudeToOpenAi } from './response.js';
import { claudeUsageParts } from './usage-parts.js';

export const anthropicMeta: ProviderMeta = {
  type: 14,
  displayName: 'Anthropic Claude',
  keyHint: 'sk-ant-api03-...（x-api-key）',
  defaultBaseURL: 'https://api.anthropic.com',
  extraFields: [],
  defaultModels: [
    'claude-opus-4-1-20250805',
    'claude-opus-4-20250514',
    'claude-sonnet-4-5-20250929',
    'claude-sonnet-4-20250514',
    'claude-haiku-4-5-20251001',
    'claude-3-7-sonnet-20250219',
    'claude-3-5-haiku-20241022',
  ],
};

/** OpenAI body → Claude request on {base}/v1/messages, and Claude answers back to OpenAI shapes. */
export const claudeChatConverter: ChatConverter = {
  framing: 'sse',
  buildRequest(body: Record<string, unknown>, call: ChatCall): UpstreamRequest {
    const claudeBody = openAiToClaude({ ...body, stream: call.isStream }, call.upstreamModel, call.options);
    const headers = applyModelHeaders(anthropicHeaders(call.target), call.upstreamModel, call.options);
    return { url: anthropicUrl('chat', call.target), headers, body: claudeBody };
  },
  parseResponse: claudeToOpenAi,
  createStreamTransform: createClaudeStreamTransform,
  jsonByTool: () => true,
  nativeJsonSchema: claudeNativeJsonSchema,
  // Claude states no limit on stop_sequences, and says which one matched.
  stopSequenceLimit: () => Number.POSITIVE_INFINITY,
  reportsStopSequence: () => true,
  isOneAnswerPerCall: () => true,
};

export const anthropicAdapter: ProviderAdapter = {
  slug: 'anthropic',
  wire: 'claude',
  chatConverter: claudeChatConverter,
  native: claudeNativeWire,
  meta: anthropicMeta,
  endpoints: new Set(['chat']),
  api: {
    url: (endpoint, target) => anthropicUrl(endpoint, target),
    headers: anthropicHeaders,
  },
  ...claudeUsageParts,
  errors: { parse: parseClaudeError },
};
