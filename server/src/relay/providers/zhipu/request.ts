import type { ChatCall, RelayEndpoint, UpstreamRequest, UpstreamTarget } from '../types.js';
import { zhipuTokenCache } from './jwt.js';
import { messageText } from '../shared/chat-turns.js';
import type { Json } from '@modelgate/shared';

const trimBase = (url: string) => url.replace(/\/+$/, '');

/** `{base}/api/paas/v3/model-api/{model}/invoke`, or `/sse-invoke` when streaming. */
export function buildZhipuUrl(target: UpstreamTarget, model: string, isStream: boolean): string {
  return `${trimBase(target.baseURL)}/api/paas/v3/model-api/${encodeURIComponent(model)}/${isStream ? 'sse-invoke' : 'invoke'}`;
}

export function zhipuApiUrl(endpoint: RelayEndpoint | 'models', target: UpstreamTarget, model: string): string {
  if (endpoint !== 'chat') throw new Error(`Zhipu v3 does not serve the ${endpoint} endpoint`);
  return buildZhipuUrl(target, model, false);
}

/**
 * OpenAI messages → Zhipu `prompt`. There is no system role: a system (or developer) message is
 * sent as a user turn followed by an assistant "Okay"; every non-assistant role is a user turn.
 */
export function zhipuPromptOf(messages: Json[]): Array<{ role: 'user' | 'assistant'; content: string }> {
  const prompt: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  for (const message of messages) {
    const content = messageText(message.content);
    if (message.role === 'system' || message.role === 'developer') {
      prompt.push({ role: 'user', content }, { role: 'assistant', content: 'Okay' });
    } else {
      prompt.push({ role: message.role === 'assistant' ? 'assistant' : 'user', content });
    }
  }
  return prompt;
}

/** OpenAI chat body → the v3 invoke body, with the signed token as the raw Authorization header. */
export async function buildZhipuRequest(body: Json, call: ChatCall): Promise<UpstreamRequest> {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const out: Json = { prompt: zhipuPromptOf(messages), incremental: true };
  if (typeof body.temperature === 'number') out.temperature = body.temperature;
  if (typeof body.top_p === 'number') out.top_p = body.top_p;
  if (typeof body.request_id === 'string') out.request_id = body.request_id;
  const token = await zhipuTokenCache.getToken(call.target.key);
  const headers: Record<string, string> = { ...call.target.headers, authorization: token };
  if (call.isStream) headers.accept = 'text/event-stream';
  return { url: buildZhipuUrl(call.target, call.upstreamModel, call.isStream), headers, body: out };
}
