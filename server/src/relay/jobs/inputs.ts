import { countInputTokens, countTextTokens, inputText } from '../billing/token-count.js';
import type { Usage } from '../billing/quota.js';
import type { RelayChannel } from '../routing/channel-index.js';
import type { ChannelCall, UpstreamBody } from '../upstream/dispatch.js';
import { sendJsonAnswer } from '../pipeline/respond.js';
import { withBase64Embeddings } from '../providers/shared/embedding-encoding.js';
import type { EmbeddingsConverter, RelayEndpoint } from '../providers/types.js';
import type { RelayJob } from '../pipeline/relay-job.js';
import { imageUsage } from './image-edits.js';
import { channelJsonBody, estimatePromptTokens, positiveInt, requireModel, type JsonBody } from './json-body.js';

function inputJob(endpoint: RelayEndpoint, body: JsonBody, model: string, input: unknown): RelayJob {
  return {
    endpoint,
    model,
    isStream: false,
    clientWantsUsage: false,
    promptTokens: estimatePromptTokens(input),
    maxTokens: 0,
    calls: 1,
    buildBody: channelJsonBody(body),
    promptText: () => inputText(input),
    countPromptTokens: () => countInputTokens(input),
    readUsage: (adapter, response) => (response ? adapter.embeddings.readUsage(response) : null),
  };
}

/** A converted non-chat request: the adapter builds it and reads its answer back to OpenAI's shape. */
function convertedBody(
  body: JsonBody,
  input: unknown,
  call: ChannelCall,
  channel: RelayChannel,
  converter: {
    buildRequest: EmbeddingsConverter['buildRequest'];
    parseResponse(json: JsonBody, model: string): { response: JsonBody; usage: Usage | null; calls?: number };
  },
  answerAs: (answer: JsonBody) => JsonBody = (answer) => answer,
) {
  const source = channel.paramOverride
    ? { ...body, ...channel.paramOverride, model: call.upstreamModel }
    : { ...body, model: call.upstreamModel };
  return Promise.resolve(converter.buildRequest(source, { ...call, isStream: false })).then((request): UpstreamBody => ({
    kind: 'request',
    value: request,
    respond: (rc) =>
      sendJsonAnswer(rc, ({ json }) => {
        const { response, usage, calls } = converter.parseResponse(json ?? {}, rc.model);
        // Converters answer float lists; a client that asked for base64 (the openai client's default) gets base64.
        const answer = body.encoding_format === 'base64' ? withBase64Embeddings(response) : response;
        const billed = usage ?? { promptTokens: countInputTokens(input), completionTokens: 0, cachedTokens: 0 };
        // An upstream without usage (Gemini's batchEmbedContents): the client is told what it is billed for.
        const stated = answer.usage as { prompt_tokens?: unknown } | undefined;
        if (answer.object === 'list' && (typeof stated?.prompt_tokens !== 'number' || stated.prompt_tokens <= 0)) {
          answer.usage = { prompt_tokens: billed.promptTokens, total_tokens: billed.promptTokens + billed.completionTokens };
        }
        return { body: answerAs(answer), usage: billed, calls };
      }),
  }));
}

/**
 * POST /v1/embeddings (converted for Gemini batchEmbedContents and Ollama /api/embed). `answerAs`
 * reshapes the OpenAI answer for another inbound API (Gemini embedContent); without it an
 * OpenAI-wire answer passes through as it came.
 */
export function embeddingsJob(body: JsonBody, answerAs?: (answer: JsonBody) => JsonBody): RelayJob {
  const job = inputJob('embeddings', body, requireModel(body), body.input);
  const plain = job.buildBody;
  return {
    ...job,
    buildBody: (channel, call) => {
      const converter = channel.adapter?.embeddingsConverter;
      if (converter) return convertedBody(body, body.input, call, channel, converter, answerAs);
      const passed = plain(channel, call) as UpstreamBody;
      if (!answerAs) return passed;
      return {
        ...passed,
        respond: (rc) =>
          sendJsonAnswer(rc, ({ json }) => {
            const answer = json ?? {};
            const usage = channel.adapter?.embeddings.readUsage(answer) ?? {
              promptTokens: countInputTokens(body.input),
              completionTokens: 0,
              cachedTokens: 0,
            };
            return { body: answerAs(answer), usage };
          }),
      };
    },
  };
}

/** POST /v1/moderations (the model is optional, as at OpenAI). */
export const moderationsJob = (body: JsonBody): RelayJob => ({
  ...inputJob('moderations', body, requireModel(body, 'omni-moderation-latest'), body.input),
  readUsage: () => null,
  promptText: undefined,
});

/** POST /v1/rerank (Jina/Cohere shape: query + documents); Cohere bills search units as calls. */
export function rerankJob(body: JsonBody): RelayJob {
  const input = [
    body.query,
    ...(Array.isArray(body.documents) ? body.documents.map((doc) => (typeof doc === 'string' ? doc : JSON.stringify(doc))) : []),
  ];
  const job = inputJob('rerank', body, requireModel(body), input);
  const plain = job.buildBody;
  return {
    ...job,
    buildBody: (channel, call) => {
      const converter = channel.adapter?.rerankConverter;
      return converter ? convertedBody(body, input, call, channel, converter) : plain(channel, call);
    },
  };
}

/** POST /v1/images/generations: per-call models bill n calls. */
export function imagesJob(body: JsonBody): RelayJob {
  const model = requireModel(body, 'dall-e-2');
  return {
    ...inputJob('images', body, model, body.prompt),
    calls: positiveInt(body.n) || 1,
    readUsage: (adapter, response) => imageUsage(adapter, response?.usage),
  };
}

/** POST /v1/audio/speech: the answer is audio; the input text is the prompt. */
export function speechJob(body: JsonBody): RelayJob {
  const model = requireModel(body);
  return {
    ...inputJob('speech', body, model, body.input),
    readUsage: () => null,
    countPromptTokens: () => countTextTokens(typeof body.input === 'string' ? body.input : ''),
  };
}
