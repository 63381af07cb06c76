import { createChunkBuilder, openAiCompletion } from '../shared/openai-chunks.js';
import { randomUUID } from 'node:crypto';
import type { Usage } from '../../billing/quota.js';
import { UpstreamError } from '../../errors.js';
import type { ConvertedEvents, StreamEvent } from '../types.js';
import { usageCount } from '../../billing/usage-count.js';
import type { Json } from '@modelgate/shared';

const num = usageCount;

/**
 * Chat apps: `metadata.usage{prompt_tokens, completion_tokens}`. Workflow apps report only
 * `data.total_tokens`, counted here as prompt tokens.
 */
export function readDifyUsage(json: Json): Usage | null {
  const usage = (json.metadata as { usage?: Json } | undefined)?.usage;
  if (usage) return { promptTokens: num(usage.prompt_tokens), completionTokens: num(usage.completion_tokens), cachedTokens: 0 };
  const data = json.data as Json | undefined;
  if (data && typeof data.total_tokens === 'number') return { promptTokens: num(data.total_tokens), completionTokens: 0, cachedTokens: 0 };
  return null;
}

/** Workflow outputs → text: `outputs.answer`/`text`/`result`, or the JSON of all outputs. */
function workflowText(outputs: unknown): string {
  if (!outputs || typeof outputs !== 'object') return '';
  const record = outputs as Json;
  for (const key of ['answer', 'text', 'result', 'output']) if (typeof record[key] === 'string') return record[key] as string;
  return JSON.stringify(record);
}

/** Blocking answer (`answer`, or a workflow run's `data.outputs`) → OpenAI chat.completion. */
export function parseDifyResponse(json: Json, model: string): { completion: Json; usage: Usage | null } {
  const data = json.data as Json | undefined;
  const content = typeof json.answer === 'string' ? json.answer : workflowText(data?.outputs);
  const usage = readDifyUsage(json);
  const id =
    typeof json.message_id === 'string' ? json.message_id : typeof json.workflow_run_id === 'string' ? json.workflow_run_id : randomUUID();
  return { completion: openAiCompletion(id, model, { role: 'assistant', content }, 'stop', usage), usage };
}

/**
 * Dify SSE (`data:` JSON with `event`) → OpenAI chunks: `message`/`agent_message` answer deltas and
 * workflow `text_chunk` → content; `agent_thought` thoughts → reasoning_content; `message_end` /
 * `workflow_finished` → finish chunk and a usage-only chunk; `error` throws.
 */
export function createDifyStreamTransform(model: string) {
  const chunks = createChunkBuilder(model);
  const delta = chunks.delta;
  let isFinished = false;
  let usage: Usage | null = null;
  const finishWith = (): Json[] => {
    isFinished = true;
    return chunks.finish('stop', usage);
  };
  return {
    onEvent(event: StreamEvent): ConvertedEvents {
      let line: Json;
      try {
        line = JSON.parse(event.data) as Json;
      } catch {
        return { chunks: [], text: '', usage };
      }
      const type = line.event ?? event.event;
      if ((type === 'message' || type === 'agent_message') && typeof line.answer === 'string' && line.answer) {
        return { chunks: [delta({ content: line.answer })], text: line.answer, usage };
      }
      if (type === 'text_chunk') {
        const text = (line.data as { text?: unknown } | undefined)?.text;
        if (typeof text === 'string' && text) return { chunks: [delta({ content: text })], text, usage };
      }
      if (type === 'agent_thought' && typeof line.thought === 'string' && line.thought) {
        return { chunks: [delta({ reasoning_content: line.thought })], text: line.thought, usage };
      }
      if (type === 'error') {
        const status = typeof line.status === 'number' ? line.status : 502;
        throw new UpstreamError(
          status,
          typeof line.message === 'string' ? line.message : 'Dify stream error',
          typeof line.code === 'string' ? line.code : null,
          event.data,
        );
      }
      if (type === 'message_end' || type === 'workflow_finished') {
        usage = readDifyUsage(line) ?? usage;
        if (type === 'workflow_finished' && (line.data as Json | undefined)?.status === 'failed') {
          throw new UpstreamError(502, String((line.data as Json).error ?? 'Dify workflow failed'), null, event.data);
        }
        return { chunks: isFinished ? [] : finishWith(), text: '', usage };
      }
      return { chunks: [], text: '', usage };
    },
    finish(): ConvertedEvents {
      return { chunks: [], text: '', usage };
    },
  };
}
