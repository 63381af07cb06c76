import type { ChatCall, UpstreamRequest } from '../types.js';
import { buildSignedHunyuanRequest } from './api.js';

type Json = Record<string, unknown>;

interface HunyuanMessage {
  Role: 'system' | 'user' | 'assistant';
  Content: string;
}

/** Hunyuan keeps at most this many messages (the system message included). */
export const maxHunyuanMessages = 40;

/** Text of an OpenAI content (string, or the text parts of an array). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Json[])
    .filter((part) => part && part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

/**
 * OpenAI messages → Hunyuan's: one system message, first (every system/developer text joined);
 * the rest user/assistant (tool results count as user), consecutive same-role turns merged so
 * they alternate; at most 40 messages, the oldest non-system turns dropped first, and a leading
 * assistant turn dropped too (Hunyuan wants the conversation to open with the user).
 */
export function toHunyuanMessages(messages: Json[]): HunyuanMessage[] {
  const system: string[] = [];
  const turns: HunyuanMessage[] = [];
  for (const message of messages) {
    const text = textOf(message.content);
    if (message.role === 'system' || message.role === 'developer') {
      if (text) system.push(text);
      continue;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const last = turns.at(-1);
    if (last && last.Role === role) last.Content = last.Content && text ? `${last.Content}\n${text}` : last.Content || text;
    else turns.push({ Role: role, Content: text });
  }
  const room = maxHunyuanMessages - (system.length > 0 ? 1 : 0);
  let kept = turns.slice(Math.max(0, turns.length - room));
  if (kept[0]?.Role === 'assistant' && kept.length > 1) kept = kept.slice(1);
  return system.length > 0 ? [{ Role: 'system', Content: system.join('\n') }, ...kept] : kept;
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
