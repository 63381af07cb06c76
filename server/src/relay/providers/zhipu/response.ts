import { randomUUID } from 'node:crypto';
import type { Usage } from '../../billing/quota.js';
import { usageCount } from '../../billing/usage-count.js';
import { UpstreamError } from '../../errors.js';
import { createChunkBuilder, openAiCompletion } from '../shared/openai-chunks.js';
import type { ConvertedEvents, StreamEvent } from '../types.js';
import { zhipuErrorOf } from './errors.js';
import type { Json } from '@modelgate/shared';

/** `usage{prompt_tokens, completion_tokens}` of an answer or a stream's `meta`; null when absent. */
export function readZhipuUsage(usage: unknown): Usage | null {
  if (!usage || typeof usage !== 'object') return null;
  const record = usage as Json;
  return { promptTokens: usageCount(record.prompt_tokens), completionTokens: usageCount(record.completion_tokens), cachedTokens: 0 };
}

/** v3 answers quote their text (`"\"Hi\\n\""`): a JSON string literal is decoded, other text kept. */
export function unquoteZhipuText(content: unknown): string {
  if (typeof content !== 'string') return '';
  if (content.length >= 2 && content.startsWith('"') && content.endsWith('"')) {
    try {
      const decoded: unknown = JSON.parse(content);
      if (typeof decoded === 'string') return decoded;
    } catch {
      return content.slice(1, -1);
    }
  }
  return content;
}

/** `{code, msg, success, data{task_id, choices, usage}}` → OpenAI chat.completion; failures throw. */
export function parseZhipuResponse(json: Json, model: string): { completion: Json; usage: Usage | null } {
  const failure = zhipuErrorOf(json, JSON.stringify(json).slice(0, 2000));
  if (failure) throw failure;
  const data = (json.data ?? {}) as Json;
  const choices = Array.isArray(data.choices) ? (data.choices as Json[]) : [];
  const content = choices.map((choice) => unquoteZhipuText(choice.content)).join('');
  const usage = readZhipuUsage(data.usage);
  const id = typeof data.task_id === 'string' ? data.task_id : randomUUID();
  return { completion: openAiCompletion(id, model, { role: 'assistant', content }, 'stop', usage), usage };
}

function metaOf(event: StreamEvent): Json | null {
  const raw = event.fields?.meta;
  if (!raw) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === 'object' ? (parsed as Json) : null;
  } catch {
    return null;
  }
}

/** A JSON `{code, msg, success}` failure answering the stream request; null for anything else (text). */
function refusalOf(data: string): UpstreamError | null {
  if (!data.startsWith('{')) return null;
  try {
    const json = JSON.parse(data) as unknown;
    if (!json || typeof json !== 'object' || !('code' in json || 'success' in json)) return null;
    return zhipuErrorOf(json as Json, data);
  } catch {
    return null;
  }
}

/**
 * Zhipu v3 SSE ('sse-raw' framing) → OpenAI chunks. `add` data is raw text (several data lines are
 * one text with newlines); `finish` may add text and carries usage in its `meta:` JSON; `error` and
 * `interrupted` throw; a bare JSON line (a refused stream request) throws its mapped error.
 */
export function createZhipuStreamTransform(model: string) {
  const chunks = createChunkBuilder(model);
  let usage: Usage | null = null;
  let isFinished = false;
  return {
    onEvent(event: StreamEvent): ConvertedEvents {
      const refusal = event.event === null ? refusalOf(event.data) : null;
      if (refusal) throw refusal;
      const name = event.event ?? 'add';
      if (name === 'error' || name === 'interrupted') {
        const message = event.data.trim() || (name === 'interrupted' ? '智谱流被中断' : '智谱流返回错误');
        throw new UpstreamError(name === 'interrupted' ? 502 : 500, message, name, event.data);
      }
      const out: Array<Record<string, unknown>> = [];
      const text = name === 'add' || name === 'finish' ? event.data : '';
      if (text) out.push(chunks.delta({ content: text }));
      if (name === 'finish') {
        const meta = metaOf(event);
        usage = readZhipuUsage(meta?.usage) ?? usage;
        if (!isFinished) out.push(...chunks.finish('stop', null));
        isFinished = true;
      }
      return { chunks: out, text, usage };
    },
    finish(): ConvertedEvents {
      return { chunks: [], text: '', usage };
    },
  };
}
