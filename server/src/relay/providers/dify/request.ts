import type { ChatCall, RelayEndpoint, UpstreamRequest, UpstreamTarget } from '../types.js';
import type { Json } from '@modelgate/shared';

export type DifyAppType = 'chat' | 'agent' | 'workflow';

/** App type from the channel's `other` (chat, chatflow, agent, workflow); chat by default. */
export function difyAppTypeOf(other: string): DifyAppType {
  const value = other.trim().toLowerCase();
  if (value === 'workflow') return 'workflow';
  if (value === 'agent') return 'agent';
  return 'chat';
}

const trimSlash = (url: string) => url.replace(/\/+$/, '').replace(/\/v1$/, '');

export function buildDifyUrl(endpoint: RelayEndpoint | 'models', target: UpstreamTarget, _model: string): string {
  if (endpoint !== 'chat') throw new Error(`Dify does not serve the ${endpoint} endpoint`);
  const path = difyAppTypeOf(target.other) === 'workflow' ? '/v1/workflows/run' : '/v1/chat-messages';
  return trimSlash(target.baseURL) + path;
}

export function buildDifyHeaders(target: UpstreamTarget): Record<string, string> {
  return { ...target.headers, authorization: `Bearer ${target.key}` };
}

export const difyUser = 'modelgate-user';

interface Parts {
  text: string;
  imageUrls: string[];
}

function partsOf(content: unknown): Parts {
  if (typeof content === 'string') return { text: content, imageUrls: [] };
  const parts: Parts = { text: '', imageUrls: [] };
  if (!Array.isArray(content)) return parts;
  const texts: string[] = [];
  for (const part of content as Json[]) {
    if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    if (part.type === 'image_url') {
      const image = part.image_url as { url?: string } | string | undefined;
      const url = typeof image === 'string' ? image : image?.url;
      // Remote URLs only; data URLs would need POST /v1/files/upload first.
      if (url && /^https?:\/\//.test(url)) parts.imageUrls.push(url);
    }
  }
  parts.text = texts.join('\n');
  return parts;
}

/**
 * The conversation as one query: a lone user message is sent as is; otherwise every turn becomes
 * `ROLE: text` (SYSTEM / USER / ASSISTANT / TOOL) on its own paragraph, ending with the last user turn.
 */
export function difyQueryOf(messages: Json[]): { query: string; imageUrls: string[] } {
  const last = messages.map((m) => m.role).lastIndexOf('user');
  const lastParts = last >= 0 ? partsOf(messages[last]!.content) : { text: '', imageUrls: [] };
  if (messages.length <= 1) return { query: lastParts.text, imageUrls: lastParts.imageUrls };
  const lines = messages.map((message) => {
    const role = message.role === 'developer' ? 'SYSTEM' : String(message.role ?? 'user').toUpperCase();
    return `${role}: ${partsOf(message.content).text}`;
  });
  return { query: lines.join('\n\n'), imageUrls: lastParts.imageUrls };
}

/** OpenAI chat body → Dify chat-messages (chat/agent apps) or workflows/run (workflow apps). */
export function buildDifyRequest(body: Json, call: ChatCall): UpstreamRequest {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const { query, imageUrls } = difyQueryOf(messages);
  const responseMode = call.isStream ? 'streaming' : 'blocking';
  const appType = difyAppTypeOf(call.target.other);
  const out: Json =
    appType === 'workflow'
      ? { inputs: { query }, response_mode: responseMode, user: difyUser }
      : { inputs: {}, query, response_mode: responseMode, user: difyUser };
  if (imageUrls.length > 0) out.files = imageUrls.map((url) => ({ type: 'image', transfer_method: 'remote_url', url }));
  return { url: buildDifyUrl('chat', call.target, call.upstreamModel), headers: buildDifyHeaders(call.target), body: out };
}
