import { countInputTokens, countTextTokens } from '../billing/token-count.js';
import type { RelayEndpoint } from '../providers/types.js';
import type { RelayJob } from '../pipeline/relay-call.js';
import { channelJsonBody, charsOf, positiveInt, requireModel, type JsonBody } from './json-body.js';

function inputJob(endpoint: RelayEndpoint, body: JsonBody, model: string, input: unknown): RelayJob {
  return {
    endpoint,
    model,
    isStream: false,
    clientWantsUsage: false,
    promptChars: charsOf(input),
    maxTokens: 0,
    calls: 1,
    buildBody: channelJsonBody(body),
    countPromptTokens: () => countInputTokens(input),
    readUsage: (adapter, response) => (response ? adapter.embeddings.readUsage(response) : null),
  };
}

/** POST /v1/embeddings. */
export const embeddingsJob = (body: JsonBody): RelayJob => inputJob('embeddings', body, requireModel(body), body.input);

/** POST /v1/moderations (the model is optional, as at OpenAI). */
export const moderationsJob = (body: JsonBody): RelayJob =>
  ({ ...inputJob('moderations', body, requireModel(body, 'omni-moderation-latest'), body.input), readUsage: () => null });

/** POST /v1/rerank (Jina/Cohere shape: query + documents). */
export const rerankJob = (body: JsonBody): RelayJob =>
  inputJob('rerank', body, requireModel(body), [body.query, ...(Array.isArray(body.documents) ? body.documents.map((doc) => (typeof doc === 'string' ? doc : JSON.stringify(doc))) : [])]);

/** POST /v1/images/generations: per-call models bill n calls. */
export function imagesJob(body: JsonBody): RelayJob {
  const model = requireModel(body, 'dall-e-2');
  return {
    ...inputJob('images', body, model, body.prompt),
    calls: positiveInt(body.n) || 1,
    readUsage: (adapter, response) => (response?.usage ? adapter.chat.readUsage(response) : null),
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
