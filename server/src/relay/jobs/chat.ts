import { countChatPromptTokens, countInputTokens, countTextTokens, inputText, messagesText, textOf } from '../billing/token-count.js';
import type { RelayJob } from '../pipeline/relay-job.js';
import { planChat } from './chat-plan.js';
import {
  capOutputTokens,
  channelJsonBody,
  estimateChatPromptTokens,
  estimatePromptTokens,
  positiveInt,
  requireModel,
  type JsonBody,
} from './json-body.js';

/** stream_options for an OpenAI-wire upstream: include_usage where supported, else none. */
export function streamRules(body: JsonBody, isStream: boolean) {
  return (out: JsonBody, supportsStreamUsage: boolean) => {
    if (!isStream) return;
    if (supportsStreamUsage) {
      const options = body.stream_options;
      out.stream_options = options && typeof options === 'object' ? { ...options, include_usage: true } : { include_usage: true };
    } else {
      delete out.stream_options;
    }
  };
}

const wantsUsage = (body: JsonBody) => (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;

/** POST /v1/chat/completions (and the playground). */
export function chatJob(body: JsonBody): RelayJob {
  const model = requireModel(body);
  const isStream = body.stream === true;
  const applyStream = streamRules(body, isStream);
  const openAiBody = channelJsonBody(body, (out, channel) => {
    applyStream(out, channel.adapter?.chatStream.supportsStreamUsage ?? false);
    channel.adapter?.chat.prepareBody(out);
  });
  return {
    endpoint: 'chat',
    responseCache: { body, temperature: body.temperature },
    model,
    isStream,
    clientWantsUsage: wantsUsage(body),
    promptTokens: estimateChatPromptTokens(body),
    maxTokens: positiveInt(body.max_tokens) || positiveInt(body.max_completion_tokens),
    capOutput: (tokens) => capOutputTokens(body, tokens),
    calls: 1,
    answers: positiveInt(body.n) || 1,
    buildBody: planChat({
      endpoint: 'chat',
      isStream,
      clientWantsUsage: wantsUsage(body),
      canonical: body,
      inbound: null,
      nativeBody: null,
      openAiBody: (channel, upstreamModel) => openAiBody(channel, { upstreamModel }).value as JsonBody,
    }),
    promptText: () => messagesText(body.messages),
    messages: body.messages,
    countPromptTokens: () => countChatPromptTokens(body.messages),
    readUsageFromBytes: (adapter, body) => adapter.chat.readUsageFromBytes?.(body),
    readUsage: (adapter, response) => (response ? adapter.chat.readUsage(response) : null),
    countCompletionTokens: (response) => {
      const choices = response.choices as Array<{ message?: { content?: unknown } }> | undefined;
      return (choices ?? []).reduce((sum, choice) => sum + countTextTokens(textOf(choice.message?.content)), 0);
    },
  };
}

/** POST /v1/completions. */
export function completionsJob(body: JsonBody): RelayJob {
  const model = requireModel(body);
  const isStream = body.stream === true;
  const applyStream = streamRules(body, isStream);
  const openAiBody = channelJsonBody(body, (out, channel) => applyStream(out, channel.adapter?.chatStream.supportsStreamUsage ?? false));
  return {
    endpoint: 'completions',
    responseCache: { body, temperature: body.temperature },
    model,
    isStream,
    clientWantsUsage: wantsUsage(body),
    promptTokens: estimatePromptTokens(body.prompt),
    maxTokens: positiveInt(body.max_tokens),
    capOutput: (tokens) => capOutputTokens(body, tokens),
    calls: 1,
    buildBody: planChat({
      endpoint: 'completions',
      isStream,
      clientWantsUsage: wantsUsage(body),
      canonical: body,
      inbound: null,
      nativeBody: null,
      openAiBody: (channel, upstreamModel) => openAiBody(channel, { upstreamModel }).value as JsonBody,
    }),
    promptText: () => inputText(body.prompt),
    countPromptTokens: () => countInputTokens(body.prompt),
    readUsageFromBytes: (adapter, body) => adapter.chat.readUsageFromBytes?.(body),
    readUsage: (adapter, response) => (response ? adapter.chat.readUsage(response) : null),
    countCompletionTokens: (response) => {
      const choices = response.choices as Array<{ text?: unknown }> | undefined;
      return (choices ?? []).reduce((sum, choice) => sum + countTextTokens(typeof choice.text === 'string' ? choice.text : ''), 0);
    },
  };
}
