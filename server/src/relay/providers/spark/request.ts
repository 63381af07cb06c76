import { RelayError } from '../../errors.js';
import { messageText } from '../shared/chat-turns.js';
import type { ChatCall, UpstreamRequest } from '../types.js';
import { parseSparkKey } from './key.js';
import { signedSparkUrl } from './sign.js';
import { acceptsSystemRole, chooseSparkVersion, sparkEndpointOf, type SparkEndpoint } from './version.js';
import type { Json } from '@modelgate/shared';

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** OpenAI messages → Spark's `payload.message.text`; older domains get a system message as user + "Okay". */
export function sparkMessagesOf(messages: unknown, endpoint: SparkEndpoint): Array<{ role: string; content: string }> {
  const list = Array.isArray(messages) ? (messages as Json[]) : [];
  const out: Array<{ role: string; content: string }> = [];
  for (const message of list) {
    const content = messageText(message.content);
    if (message.role === 'system' || message.role === 'developer') {
      if (acceptsSystemRole(endpoint)) out.push({ role: 'system', content });
      else out.push({ role: 'user', content }, { role: 'assistant', content: 'Okay' });
    } else {
      out.push({ role: message.role === 'assistant' ? 'assistant' : 'user', content });
    }
  }
  return out;
}

/** OpenAI `tools` → Spark `functions.text` (function definitions only). */
function functionsOf(tools: unknown): Json[] {
  if (!Array.isArray(tools)) return [];
  return (tools as Json[]).map((tool) => tool?.function).filter((fn): fn is Json => !!fn && typeof fn === 'object');
}

/** The request frame: `{header{app_id, uid}, parameter{chat{domain, …}}, payload{message{text}, functions?}}`. */
export function sparkFrameOf(body: Json, appId: string, endpoint: SparkEndpoint): Json {
  const chat: Json = { domain: endpoint.domain };
  if (isNumber(body.temperature)) chat.temperature = Math.min(1, Math.max(0.01, body.temperature));
  const maxTokens = isNumber(body.max_tokens) ? body.max_tokens : isNumber(body.max_completion_tokens) ? body.max_completion_tokens : null;
  if (maxTokens !== null) chat.max_tokens = Math.max(1, Math.floor(maxTokens));
  if (isNumber(body.top_k)) chat.top_k = Math.floor(body.top_k);
  const payload: Json = { message: { text: sparkMessagesOf(body.messages, endpoint) } };
  const functions = functionsOf(body.tools);
  if (functions.length > 0) payload.functions = { text: functions };
  const uid = typeof body.user === 'string' && body.user ? body.user.slice(0, 32) : 'modelgate';
  return { header: { app_id: appId, uid }, parameter: { chat }, payload };
}

/** The signed WebSocket URL and the frame to send on it (iFlytek always streams over the socket). */
export function buildSparkRequest(body: Json, call: ChatCall, nowMs = Date.now()): UpstreamRequest {
  const key = parseSparkKey(call.target.key);
  if (!key) throw new RelayError(500, 'invalid_channel_key', '讯飞星火渠道密钥格式应为 APPID|APISecret|APIKey');
  const endpoint = sparkEndpointOf(chooseSparkVersion(call.requestOptions?.apiVersion, call.upstreamModel, call.target.other));
  return {
    url: signedSparkUrl(call.target.baseURL || 'wss://spark-api.xf-yun.com', endpoint.path, key.apiKey, key.apiSecret, nowMs),
    headers: {},
    body: sparkFrameOf(body, key.appId, endpoint),
  };
}
