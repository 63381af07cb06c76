import { randomUUID } from 'node:crypto';
import type { Usage } from '../../billing/quota.js';
import { usageCount } from '../../billing/usage-count.js';
import { createChunkBuilder, openAiCompletion } from '../shared/openai-chunks.js';
import type { ConvertedEvents, StreamEvent } from '../types.js';
import { throwIfHunyuanError } from './errors.js';
import { jsonOfStreamLine } from '../shared/stream-lines.js';
import type { Json } from '@modelgate/shared';

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `Usage{PromptTokens, CompletionTokens}`; null when absent. */
export function readHunyuanUsage(raw: unknown): Usage | null {
  if (!isObject(raw)) return null;
  if (raw.PromptTokens === undefined && raw.CompletionTokens === undefined) return null;
  return { promptTokens: usageCount(raw.PromptTokens), completionTokens: usageCount(raw.CompletionTokens), cachedTokens: 0 };
}

const finishReasons: Record<string, string> = { stop: 'stop', length: 'length', sensitive: 'content_filter', tool_calls: 'tool_calls' };
const finishOf = (reason: unknown): string => finishReasons[String(reason)] ?? 'stop';

/** The answer's payload: Tencent wraps it in `Response`; a bare object (some proxies) is read as is. */
const payloadOf = (json: Json): Json => (isObject(json.Response) ? json.Response : json);

const firstChoice = (payload: Json): Json => (Array.isArray(payload.Choices) && isObject(payload.Choices[0]) ? payload.Choices[0] : {});

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** `{"Response":{Id, Choices[{Message, FinishReason}], Usage}}` → OpenAI chat.completion; an error body throws. */
export function parseHunyuanResponse(json: Json, model: string): { completion: Json; usage: Usage | null } {
  throwIfHunyuanError(json, JSON.stringify(json));
  const payload = payloadOf(json);
  const choice = firstChoice(payload);
  const message = isObject(choice.Message) ? choice.Message : {};
  const out: Json = { role: 'assistant', content: str(message.Content) };
  if (str(message.ReasoningContent)) out.reasoning_content = message.ReasoningContent;
  const usage = readHunyuanUsage(payload.Usage);
  const id = str(payload.Id) || str(payload.RequestId) || randomUUID();
  return { completion: openAiCompletion(id, model, out, finishOf(choice.FinishReason), usage), usage };
}

/**
 * Hunyuan's stream, read line by line: `data:` frames with `Choices[].Delta{Content,
 * ReasoningContent}` and a cumulative `Usage`, the last one with `FinishReason` set. An error
 * (a frame, or a plain JSON error body answered to the stream request) throws an UpstreamError.
 */
export function createHunyuanStreamTransform(model: string) {
  const chunks = createChunkBuilder(model);
  let usage: Usage | null = null;
  let isStarted = false;
  let isFinished = false;
  return {
    onEvent(event: StreamEvent): ConvertedEvents {
      const frame = jsonOfStreamLine(event.data);
      if (!frame) return { chunks: [], text: '', usage };
      throwIfHunyuanError(frame, event.data);
      if (!isStarted && str(frame.Id)) chunks.useId(frame.Id as string);
      isStarted = true;
      usage = readHunyuanUsage(frame.Usage) ?? usage;
      const choice = firstChoice(frame);
      const delta = isObject(choice.Delta) ? choice.Delta : {};
      const out: Json[] = [];
      const reasoning = str(delta.ReasoningContent);
      const content = str(delta.Content);
      if (reasoning) out.push(chunks.delta({ reasoning_content: reasoning }));
      if (content) out.push(chunks.delta({ content }));
      if (str(choice.FinishReason) && !isFinished) {
        isFinished = true;
        out.push(...chunks.finish(finishOf(choice.FinishReason), usage));
      }
      return { chunks: out, text: reasoning + content, usage };
    },
    finish(): ConvertedEvents {
      if (isFinished || !isStarted) return { chunks: [], text: '', usage };
      isFinished = true;
      return { chunks: chunks.finish('stop', usage), text: '', usage };
    },
  };
}
