import { openAiToClaude } from '../anthropic/chat.js';
import { createClaudeStreamTransform } from '../anthropic/chat-stream.js';
import { createClaudeUsageReader } from '../anthropic/native.js';
import { claudeNativeJsonSchema } from '../anthropic/output-format.js';
import { claudeToOpenAi } from '../anthropic/response.js';
import { readClaudeUsage } from '../anthropic/usage.js';
import { claudeUsageParts } from '../anthropic/usage-parts.js';
import type { ChatCall, ChatConverter, NativeWire, ProviderAdapter, ProviderMeta, StreamEvent } from '../types.js';
import { bedrockEndpoint, buildBedrockRequest } from './api.js';
import { bedrockStreamError, isBedrockException, parseBedrockError } from './errors.js';
import { validateBedrockKey } from './key.js';
import { bedrockClaudeModels } from './model-ids.js';

export const awsBedrockMeta: ProviderMeta = {
  type: 33,
  displayName: 'AWS Bedrock (Claude)',
  keyHint: 'AccessKey|SecretAccessKey|Region（SigV4）或 APIKey|Region（Bedrock API Key）',
  defaultBaseURL: '',
  extraFields: [],
  defaultModels: bedrockClaudeModels.filter((model) => !/^claude-(2|instant)/.test(model)),
};

/** Exception frames of the event stream throw; everything else is an Anthropic event. */
function guardException(event: StreamEvent): void {
  if (isBedrockException(event.event)) throw bedrockStreamError(event.event!, event.data);
}

export const bedrockChatConverter: ChatConverter = {
  framing: 'aws-eventstream',
  buildRequest(body: Record<string, unknown>, call: ChatCall) {
    const claudeBody = openAiToClaude(body, call.upstreamModel, call.options);
    return buildBedrockRequest(claudeBody, call, call.isStream);
  },
  parseResponse: claudeToOpenAi,
  jsonByTool: () => true,
  isOneAnswerPerCall: () => true,
  nativeJsonSchema: claudeNativeJsonSchema,
  createStreamTransform(model: string) {
    const transform = createClaudeStreamTransform(model);
    return {
      onEvent(event: StreamEvent) {
        guardException(event);
        return transform.onEvent(event);
      },
      finish: () => transform.finish(),
    };
  },
};

/** Claude-format clients on a Bedrock channel: the Messages body, re-shaped only as Bedrock requires. */
export const bedrockNativeWire: NativeWire = {
  format: 'claude',
  framing: 'aws-eventstream',
  buildRequest(body: Record<string, unknown>, call: ChatCall) {
    return buildBedrockRequest({ ...body, model: call.upstreamModel }, call, call.isStream);
  },
  readUsage: (json) => readClaudeUsage(json.usage),
  createUsageReader() {
    const reader = createClaudeUsageReader();
    return {
      onEvent(event: StreamEvent) {
        guardException(event);
        return reader.onEvent(event);
      },
    };
  },
};

export const awsBedrockAdapter: ProviderAdapter = {
  slug: 'aws-bedrock',
  wire: 'claude',
  chatConverter: bedrockChatConverter,
  native: bedrockNativeWire,
  meta: awsBedrockMeta,
  endpoints: new Set(['chat']),
  validateChannel: (key) => validateBedrockKey(key),
  api: {
    url: (_endpoint, target, model) => `${bedrockEndpoint(target)}/model/${encodeURIComponent(model)}/invoke`,
    // Auth depends on the body (SigV4 signs it): the converters build complete headers.
    headers: () => ({ 'content-type': 'application/json' }),
  },
  ...claudeUsageParts,
  errors: { parse: parseBedrockError },
};
