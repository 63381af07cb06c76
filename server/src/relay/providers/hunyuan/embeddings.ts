import type { Usage } from '../../billing/quota.js';
import { usageCount } from '../../billing/usage-count.js';
import { relayErrors } from '../../errors.js';
import type { ChatCall, UpstreamRequest } from '../types.js';
import { buildSignedHunyuanRequest } from './api.js';
import { throwIfHunyuanError } from './errors.js';
import type { Json } from '@modelgate/shared';

/** OpenAI embeddings body → a signed `GetEmbedding` call: `{Input}` for one text, `{InputList}` for several. */
export function buildHunyuanEmbeddingsRequest(body: Json, call: ChatCall, nowMs = Date.now()): UpstreamRequest {
  const input = body.input;
  let payload: Json;
  if (typeof input === 'string') payload = { Input: input };
  else if (Array.isArray(input) && input.length > 0 && input.every((item) => typeof item === 'string')) payload = { InputList: input };
  else throw relayErrors.badRequest('腾讯混元向量接口的 input 只能是字符串或字符串数组');
  return buildSignedHunyuanRequest(call.target, 'GetEmbedding', payload, nowMs);
}

/** `{"Response":{Data[{Embedding, Index}], Usage{PromptTokens, TotalTokens}}}` → OpenAI's list; an error body throws. */
export function parseHunyuanEmbeddings(json: Json, model: string): { response: Json; usage: Usage | null } {
  throwIfHunyuanError(json, JSON.stringify(json));
  const payload = (typeof json.Response === 'object' && json.Response !== null ? json.Response : json) as Json;
  const rows = Array.isArray(payload.Data) ? (payload.Data as unknown[]) : [];
  const data = rows.map((row, position) => {
    const item = (typeof row === 'object' && row !== null ? row : {}) as Json;
    const embedding = Array.isArray(item.Embedding) ? item.Embedding.filter((value): value is number => typeof value === 'number') : [];
    return { object: 'embedding', index: typeof item.Index === 'number' ? item.Index : position, embedding };
  });
  const raw = payload.Usage as Json | undefined;
  const usage: Usage | null =
    raw && typeof raw === 'object' && (raw.PromptTokens !== undefined || raw.TotalTokens !== undefined)
      ? { promptTokens: usageCount(raw.PromptTokens ?? raw.TotalTokens), completionTokens: 0, cachedTokens: 0 }
      : null;
  const response: Json = { object: 'list', data, model };
  if (usage) response.usage = { prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens };
  return { response, usage };
}
