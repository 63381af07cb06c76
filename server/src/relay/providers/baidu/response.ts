import { randomUUID } from 'node:crypto';
import type { Usage } from '../../billing/quota.js';
import { usageCount } from '../../billing/usage-count.js';
import { createChunkBuilder, openAiCompletion } from '../shared/openai-chunks.js';
import type { ConvertedEvents, StreamEvent } from '../types.js';
import { baiduErrorCode, baiduUpstreamError, isTokenRejected } from './errors.js';
import { baiduTokenCache } from './token.js';
import { jsonOfStreamLine } from '../shared/stream-lines.js';
import type { Json } from '@modelgate/shared';

/** `usage{prompt_tokens, completion_tokens, total_tokens}`; completion from the total when it is missing. */
export function readBaiduUsage(usage: unknown): Usage | null {
  if (!usage || typeof usage !== 'object') return null;
  const record = usage as Json;
  const promptTokens = usageCount(record.prompt_tokens);
  const completionTokens =
    record.completion_tokens === undefined
      ? Math.max(0, usageCount(record.total_tokens) - promptTokens)
      : usageCount(record.completion_tokens);
  return { promptTokens, completionTokens, cachedTokens: 0 };
}

/**
 * Throws an answer's `{error_code, error_msg}` as an UpstreamError; on 110/111 (token invalid or
 * expired) the cached tokens are forgotten first, so the next call issues a new one.
 */
export function throwIfBaiduError(json: Json, bodyText?: string): void {
  const error = baiduUpstreamError(json, bodyText);
  if (!error) return;
  if (isTokenRejected(baiduErrorCode(json)!.code)) baiduTokenCache.forgetAll();
  throw error;
}

function finishReasonOf(json: Json): string {
  if (json.finish_reason === 'content_filter' || json.need_clear_history === true) return 'content_filter';
  if (json.is_truncated === true || json.finish_reason === 'length') return 'length';
  return 'stop';
}

/** `{id, result, is_truncated, usage}` → OpenAI chat.completion. */
export function parseBaiduResponse(json: Json, model: string): { completion: Json; usage: Usage | null } {
  throwIfBaiduError(json);
  const usage = readBaiduUsage(json.usage);
  const id = typeof json.id === 'string' && json.id ? json.id : randomUUID();
  const content = typeof json.result === 'string' ? json.result : '';
  return { completion: openAiCompletion(id, model, { role: 'assistant', content }, finishReasonOf(json), usage), usage };
}

/**
 * Baidu stream frames `{id, sentence_id, result, is_end, is_truncated, usage}` → OpenAI chunks. Read
 * as NDJSON lines (framing 'ndjson') so an error body without `data:` is seen too; the last frame's
 * usage wins (cumulative); `is_end` closes with the finish chunk and the usage-only chunk.
 */
export function createBaiduStreamTransform(model: string) {
  const chunks = createChunkBuilder(model);
  let usage: Usage | null = null;
  let isIdSet = false;
  let isFinished = false;
  return {
    onEvent(event: StreamEvent): ConvertedEvents {
      const json = jsonOfStreamLine(event.data);
      if (!json) return { chunks: [], text: '', usage };
      throwIfBaiduError(json, event.data);
      if (!isIdSet && typeof json.id === 'string' && json.id) {
        chunks.useId(json.id);
        isIdSet = true;
      }
      usage = readBaiduUsage(json.usage) ?? usage;
      const text = typeof json.result === 'string' ? json.result : '';
      const out: Json[] = text ? [chunks.delta({ content: text })] : [];
      if (json.is_end === true && !isFinished) {
        isFinished = true;
        out.push(...chunks.finish(finishReasonOf(json), usage));
      }
      return { chunks: out, text, usage };
    },
    finish(): ConvertedEvents {
      // A stream cut before `is_end`: close it so the client still gets a finish reason.
      if (isFinished) return { chunks: [], text: '', usage };
      isFinished = true;
      return { chunks: chunks.finish('stop', usage), text: '', usage };
    },
  };
}
