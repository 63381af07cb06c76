import type { Usage } from '../../billing/quota.js';
import { UpstreamError } from '../../errors.js';
import { readOpenAiUsage } from '../openai/chat.js';
import { createOpenAiChunkTransform } from '../openai/chat-stream.js';
import type { ChatCall, ConvertedEvents, StreamEvent, UpstreamRequest } from '../types.js';
import { miniMaxApi } from './api.js';
import { miniMaxErrorOf } from './errors.js';
import type { Json } from '@modelgate/shared';

/** The OpenAI body as is, asking for stream usage when streaming (MiniMax supports stream_options). */
export function buildMiniMaxChatRequest(body: Json, call: ChatCall): UpstreamRequest {
  const out: Json = { ...body, model: call.upstreamModel };
  if (call.isStream) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  } else {
    delete out.stream;
    delete out.stream_options;
  }
  return { url: miniMaxApi.url('chat', call.target, call.upstreamModel), headers: miniMaxApi.headers(call.target), body: out };
}

/** An `{error}` object some gateways in front of MiniMax answer with (the OpenAI shape). */
function openAiErrorOf(json: Json, bodyText: string): UpstreamError | null {
  const error = json.error as { message?: unknown; code?: unknown } | undefined;
  if (!error || typeof error !== 'object' || Array.isArray(json.choices)) return null;
  return new UpstreamError(
    500,
    typeof error.message === 'string' ? error.message : 'MiniMax 返回错误',
    typeof error.code === 'string' ? error.code : null,
    bodyText,
  );
}

/** OpenAI-shaped answer; a `base_resp` failure on HTTP 200 throws. */
export function parseMiniMaxChat(json: Json, model: string): { completion: Json; usage: Usage | null } {
  const failure = miniMaxErrorOf(json, JSON.stringify(json).slice(0, 2000)) ?? openAiErrorOf(json, JSON.stringify(json).slice(0, 2000));
  if (failure) throw failure;
  const { base_resp: _base, input_sensitive: _input, output_sensitive: _output, ...completion } = json;
  return { completion: { ...completion, object: 'chat.completion', model }, usage: readOpenAiUsage(json.usage) };
}

/** A chunk's choices as OpenAI deltas: the final chunk repeats the whole `message`, which is dropped. */
function deltaChoices(choices: unknown): Json[] {
  if (!Array.isArray(choices)) return [];
  // A stray null or scalar in place of a choice is skipped, not a crash.
  return (choices as unknown[]).flatMap((item, index) => {
    if (!item || typeof item !== 'object') return [];
    const choice = item as Json;
    return [
      {
        index: typeof choice.index === 'number' ? choice.index : index,
        delta: choice.delta && typeof choice.delta === 'object' ? choice.delta : {},
        finish_reason: choice.finish_reason ?? null,
      },
    ];
  });
}

/**
 * MiniMax SSE ('sse-raw' framing, so a bare JSON refusal is seen too) → OpenAI chunks; text and
 * usage are read by the OpenAI chunk reader; a `base_resp` failure in any chunk throws.
 */
export function createMiniMaxStreamTransform(model: string) {
  const reader = createOpenAiChunkTransform({});
  let usage: Usage | null = null;
  const none = (): ConvertedEvents => ({ chunks: [], text: '', usage });
  return {
    onEvent(event: StreamEvent): ConvertedEvents {
      const data = event.data.trim();
      if (!data || data === '[DONE]') return none();
      let chunk: Json;
      try {
        chunk = JSON.parse(data) as Json;
      } catch {
        return none();
      }
      const failure = miniMaxErrorOf(chunk, data) ?? openAiErrorOf(chunk, data);
      if (failure) throw failure;
      const verdict = reader.onChunk(chunk);
      usage = verdict.usage ?? usage;
      const choices = deltaChoices(chunk.choices);
      if (choices.length === 0) return { chunks: [], text: verdict.text, usage };
      const out = { id: chunk.id, object: 'chat.completion.chunk', created: chunk.created, model, choices };
      return { chunks: [out], text: verdict.text, usage };
    },
    finish: none,
  };
}
