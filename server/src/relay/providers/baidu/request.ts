import { alternatingTurns, type ChatTurn } from '../shared/chat-turns.js';
import type { ChatCall, UpstreamRequest } from '../types.js';
import { baiduUrl, splitBaiduKey, withAccessToken, baiduBase } from './api.js';
import { baiduTokenCache } from './token.js';
import { UpstreamError } from '../../errors.js';
import type { Json } from '@modelgate/shared';

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * OpenAI messages → Baidu `system` and `messages`: system/developer turns are joined into `system`;
 * assistant turns stay, every other role is a user turn; consecutive turns of one role are joined
 * (Baidu wants user and assistant to alternate).
 */
export function baiduMessagesOf(messages: Json[]): { system: string; messages: ChatTurn[] } {
  const { system, turns } = alternatingTurns(messages);
  return { system, messages: turns };
}

/** OpenAI chat body → the wenxinworkshop chat body. Baidu's ranges: temperature (0, 1], penalty_score [1, 2]. */
export function baiduChatBody(body: Json, isStream: boolean): Json {
  const { system, messages } = baiduMessagesOf(Array.isArray(body.messages) ? (body.messages as Json[]) : []);
  const out: Json = { messages };
  if (system) out.system = system;
  if (isNumber(body.temperature)) out.temperature = clamp(body.temperature, 0.01, 1);
  if (isNumber(body.top_p)) out.top_p = clamp(body.top_p, 0, 1);
  if (isNumber(body.frequency_penalty)) out.penalty_score = clamp(body.frequency_penalty, 1, 2);
  const maxTokens = isNumber(body.max_tokens) ? body.max_tokens : isNumber(body.max_completion_tokens) ? body.max_completion_tokens : null;
  if (maxTokens !== null) out.max_output_tokens = Math.max(2, Math.floor(maxTokens));
  if (typeof body.stop === 'string') out.stop = [body.stop];
  else if (Array.isArray(body.stop)) out.stop = body.stop.filter((stop) => typeof stop === 'string');
  if (typeof body.user === 'string' && body.user) out.user_id = body.user;
  if ((body.response_format as Json | undefined)?.type === 'json_object') out.response_format = 'json_object';
  out.stream = isStream;
  return out;
}

/** The access token for the channel key `APIKey|SecretKey`, issued at the channel's base URL. */
export async function baiduAccessToken(call: ChatCall): Promise<string> {
  const parts = splitBaiduKey(call.target.key);
  if (!parts) throw new UpstreamError(401, '百度渠道密钥格式应为 APIKey|SecretKey', 'invalid_key_format', '');
  return baiduTokenCache.getAccessToken({ ...parts, base: baiduBase(call.target), dispatcher: call.target.dispatcher });
}

export async function buildBaiduChatRequest(body: Json, call: ChatCall): Promise<UpstreamRequest> {
  const token = await baiduAccessToken(call);
  return {
    url: withAccessToken(baiduUrl('chat', call.target, call.upstreamModel), token),
    headers: { ...call.target.headers, 'content-type': 'application/json' },
    body: baiduChatBody(body, call.isStream),
  };
}
