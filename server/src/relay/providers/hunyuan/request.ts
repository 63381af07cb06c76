import { alternatingTurns } from '../shared/chat-turns.js';
import type { ChatCall, UpstreamRequest } from '../types.js';
import { buildSignedHunyuanRequest } from './api.js';
import type { Json } from '@modelgate/shared';

interface HunyuanMessage {
  Role: 'system' | 'user' | 'assistant';
  Content: string;
}

/** Hunyuan keeps at most this many messages (the system message included). */
export const maxHunyuanMessages = 40;

/**
 * OpenAI messages → Hunyuan's: one system message, first (every system/developer text joined);
 * the rest user/assistant (tool results count as user), consecutive same-role turns merged so
 * they alternate; at most 40 messages, the oldest non-system turns dropped first, and a leading
 * assistant turn dropped too (Hunyuan wants the conversation to open with the user).
 */
export function toHunyuanMessages(messages: Json[]): HunyuanMessage[] {
  const { system, turns: all } = alternatingTurns(messages);
  const turns: HunyuanMessage[] = all.map((turn) => ({ Role: turn.role, Content: turn.content }));
  const room = maxHunyuanMessages - (system ? 1 : 0);
  let kept = turns.slice(Math.max(0, turns.length - room));
  if (kept[0]?.Role === 'assistant' && kept.length > 1) kept = kept.slice(1);
  return system ? [{ Role: 'system', Content: system }, ...kept] : kept;
}

/** OpenAI chat body → a signed `ChatCompletions` call: `{Model, Messages, Stream, TopP?, Temperature?}`. */
export function buildHunyuanChatRequest(body: Json, call: ChatCall, nowMs = Date.now()): UpstreamRequest {
  const payload: Json = {
    Model: call.upstreamModel,
    Messages: toHunyuanMessages(Array.isArray(body.messages) ? (body.messages as Json[]) : []),
    Stream: call.isStream,
  };
  if (typeof body.top_p === 'number') payload.TopP = body.top_p;
  if (typeof body.temperature === 'number') payload.Temperature = body.temperature;
  return buildSignedHunyuanRequest(call.target, 'ChatCompletions', payload, nowMs);
}
