import { relayErrors, UpstreamError } from '../errors.js';
import type { RelayJob } from '../pipeline/relay-job.js';
import { embeddingsJob } from './inputs.js';
import { positiveInt, type JsonBody } from './json-body.js';

/** The most texts one batchEmbedContents may carry (Google's own limit). */
const maxBatch = 250;

const badContent = (path: string, message: string) => relayErrors.badRequest(`${path}: ${message}`, 'invalid_content_part');

/** The text of a Gemini Content (its text parts, joined): what the model embeds. */
function textOfContent(content: unknown, path: string): string {
  if (!content || typeof content !== 'object' || Array.isArray(content)) throw badContent(path, 'content 必须是包含 parts 的对象');
  const parts = (content as JsonBody).parts;
  if (!Array.isArray(parts) || parts.length === 0) throw badContent(`${path}.parts`, 'parts 必须是非空数组');
  return parts
    .map((part, index) => {
      const text = part && typeof part === 'object' ? (part as JsonBody).text : undefined;
      if (typeof text !== 'string') throw badContent(`${path}.parts[${index}]`, '向量接口只接受 text 部分');
      return text;
    })
    .join('\n');
}

/** OpenAI `data[].embedding` as float lists, in index order; an answer without them is the upstream's fault. */
function vectorsOf(answer: JsonBody, count: number): number[][] {
  const data = Array.isArray(answer.data) ? (answer.data as JsonBody[]) : [];
  const vectors = [...data].sort((a, b) => Number(a?.index ?? 0) - Number(b?.index ?? 0)).map((item) => item?.embedding);
  if (vectors.length !== count || !vectors.every((vector) => Array.isArray(vector) && vector.every((value) => typeof value === 'number'))) {
    throw new UpstreamError(502, '上游向量响应格式错误', 'upstream_bad_response', '');
  }
  return vectors as number[][];
}

/**
 * Gemini `models/{model}:embedContent` and `:batchEmbedContents` on any channel: the texts become an
 * OpenAI embeddings request (through the embeddings relay, converted back for Gemini channels) and
 * the answer is given in Gemini's shape: `{embedding: {values}}` or `{embeddings: [{values}]}`.
 */
export function geminiEmbeddingsJob(model: string, action: 'embedContent' | 'batchEmbedContents', body: JsonBody): RelayJob {
  let input: string | string[];
  let dimensions = positiveInt(body.outputDimensionality);
  if (action === 'embedContent') {
    input = textOfContent(body.content, 'content');
  } else {
    if (!Array.isArray(body.requests) || body.requests.length === 0)
      throw relayErrors.badRequest('requests 必须是非空数组', 'invalid_request');
    if (body.requests.length > maxBatch) throw relayErrors.badRequest(`requests 最多 ${maxBatch} 条`, 'invalid_request');
    input = (body.requests as unknown[]).map((item, index) => {
      if (!item || typeof item !== 'object') throw relayErrors.badRequest(`requests[${index}] 必须是对象`, 'invalid_request');
      dimensions ||= positiveInt((item as JsonBody).outputDimensionality);
      return textOfContent((item as JsonBody).content, `requests[${index}].content`);
    });
  }
  const openAiBody: JsonBody = { model, input, encoding_format: 'float' };
  if (dimensions > 0) openAiBody.dimensions = dimensions;
  const count = Array.isArray(input) ? input.length : 1;
  return embeddingsJob(openAiBody, (answer) => {
    const vectors = vectorsOf(answer, count);
    return action === 'embedContent' ? { embedding: { values: vectors[0] } } : { embeddings: vectors.map((values) => ({ values })) };
  });
}
