import { randomUUID } from 'node:crypto';
import type { Usage } from '../../billing/quota.js';
import { UpstreamError } from '../../errors.js';
import type { ConvertedEvents, StreamEvent } from '../types.js';
import { usageCount } from '../../billing/usage-count.js';
import type { Json } from '@modelgate/shared';

const num = usageCount;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** prompt = prompt_eval_count, completion = eval_count; null when neither is present. */
export function readOllamaUsage(json: Json): Usage | null {
  if (json.prompt_eval_count === undefined && json.eval_count === undefined) return null;
  return { promptTokens: num(json.prompt_eval_count), completionTokens: num(json.eval_count), cachedTokens: 0 };
}

const openAiUsage = (usage: Usage) => ({
  prompt_tokens: usage.promptTokens,
  completion_tokens: usage.completionTokens,
  total_tokens: usage.promptTokens + usage.completionTokens,
});

function toolCallsOf(message: Json | undefined, idPrefix: string): Json[] {
  const calls = message?.tool_calls as Array<{ function?: { name?: string; arguments?: unknown } }> | undefined;
  if (!Array.isArray(calls)) return [];
  return calls.map((call, index) => ({
    index,
    id: `call_${idPrefix}_${index}`,
    type: 'function',
    function: {
      name: call.function?.name ?? '',
      arguments: typeof call.function?.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function?.arguments ?? {}),
    },
  }));
}

const finishOf = (doneReason: unknown, hasTools: boolean) => (hasTools ? 'tool_calls' : doneReason === 'length' ? 'length' : 'stop');

/** `/api/chat` answer → OpenAI chat.completion. */
export function parseOllamaChat(json: Json, model: string): { completion: Json; usage: Usage | null } {
  const message = json.message as Json | undefined;
  const id = randomUUID().replaceAll('-', '');
  const toolCalls = toolCallsOf(message, id.slice(0, 8)).map(({ index: _index, ...call }) => call);
  const out: Json = { role: 'assistant', content: typeof message?.content === 'string' ? message.content : '' };
  if (typeof message?.thinking === 'string' && message.thinking) out.reasoning_content = message.thinking;
  if (toolCalls.length > 0) out.tool_calls = toolCalls;
  const usage = readOllamaUsage(json);
  const completion: Json = {
    id: `chatcmpl-${id}`,
    object: 'chat.completion',
    created: nowSeconds(),
    model,
    choices: [{ index: 0, message: out, finish_reason: finishOf(json.done_reason, toolCalls.length > 0) }],
  };
  if (usage) completion.usage = openAiUsage(usage);
  return { completion, usage };
}

/** `/api/generate` answer → OpenAI text_completion. */
export function parseOllamaGenerate(json: Json, model: string): { completion: Json; usage: Usage | null } {
  const usage = readOllamaUsage(json);
  const completion: Json = {
    id: `cmpl-${randomUUID().replaceAll('-', '')}`,
    object: 'text_completion',
    created: nowSeconds(),
    model,
    choices: [
      {
        index: 0,
        text: typeof json.response === 'string' ? json.response : '',
        finish_reason: finishOf(json.done_reason, false),
        logprobs: null,
      },
    ],
  };
  if (usage) completion.usage = openAiUsage(usage);
  return { completion, usage };
}

/** `/api/embed` `{embeddings, prompt_eval_count}` → OpenAI embeddings list. */
export function parseOllamaEmbed(json: Json, model: string): { response: Json; usage: Usage } {
  const embeddings = Array.isArray(json.embeddings) ? (json.embeddings as unknown[]) : [];
  const usage: Usage = { promptTokens: num(json.prompt_eval_count), completionTokens: 0, cachedTokens: 0 };
  return {
    response: {
      object: 'list',
      model,
      data: embeddings.map((embedding, index) => ({ object: 'embedding', index, embedding })),
      usage: { prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens },
    },
    usage,
  };
}

function parseLine(event: StreamEvent): Json | null {
  try {
    const parsed = JSON.parse(event.data) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Json) : null;
  } catch {
    return null;
  }
}

/**
 * NDJSON `/api/chat` (or `/api/generate` with `kind: 'completion'`) stream → OpenAI chunks. The
 * `done:true` line yields the finish chunk and a usage-only chunk (`choices: []`). An in-stream
 * `{"error"}` line throws.
 */
export function createOllamaStreamTransform(model: string, kind: 'chat' | 'completion' = 'chat') {
  const id = `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomUUID().replaceAll('-', '')}`;
  const created = nowSeconds();
  const object = kind === 'chat' ? 'chat.completion.chunk' : 'text_completion';
  let isRoleSent = false;
  let toolIndex = 0;
  let hasTools = false;
  let usage: Usage | null = null;
  const chunk = (choices: Json[], extra: Json = {}): Json => ({ id, object, created, model, choices, ...extra });
  return {
    onEvent(event: StreamEvent): ConvertedEvents {
      const line = parseLine(event);
      if (!line) return { chunks: [], text: '', usage };
      if (typeof line.error === 'string') throw new UpstreamError(502, line.error, null, event.data);
      const chunks: Json[] = [];
      let text = '';
      if (kind === 'completion') {
        const piece = typeof line.response === 'string' ? line.response : '';
        if (piece) chunks.push(chunk([{ index: 0, text: piece, finish_reason: null }]));
        text = piece;
      } else {
        const message = line.message as Json | undefined;
        const delta: Json = {};
        if (!isRoleSent) delta.role = 'assistant';
        if (typeof message?.content === 'string' && message.content) delta.content = message.content;
        if (typeof message?.thinking === 'string' && message.thinking) delta.reasoning_content = message.thinking;
        const calls = toolCallsOf(message, id.slice(-8)).map((call): Json => {
          const index = toolIndex + (call.index as number);
          return { ...call, index, id: `call_${id.slice(-8)}_${index}` };
        });
        if (calls.length > 0) {
          delta.tool_calls = calls;
          toolIndex += calls.length;
          hasTools = true;
        }
        text =
          `${(delta.content as string | undefined) ?? ''}${(delta.reasoning_content as string | undefined) ?? ''}` +
          calls.map((call) => `${(call.function as Json).name as string}${(call.function as Json).arguments as string}`).join('');
        const hasPayload = delta.content !== undefined || delta.reasoning_content !== undefined || calls.length > 0;
        if (hasPayload || (!isRoleSent && line.done !== true)) {
          chunks.push(chunk([{ index: 0, delta, finish_reason: null }]));
          isRoleSent = true;
        }
      }
      if (line.done === true) {
        usage = readOllamaUsage(line);
        const finish = finishOf(line.done_reason, hasTools);
        chunks.push(
          chunk([kind === 'chat' ? { index: 0, delta: {}, finish_reason: finish } : { index: 0, text: '', finish_reason: finish }]),
        );
        if (usage) chunks.push(chunk([], { usage: openAiUsage(usage) }));
      }
      return { chunks, text, usage };
    },
    finish(): ConvertedEvents {
      return { chunks: [], text: '', usage };
    },
  };
}
