import type { ChatCall, UpstreamRequest, UpstreamTarget } from '../types.js';
import { messageText } from '../shared/chat-turns.js';
import type { Json } from '@modelgate/shared';

const trimSlash = (url: string) => url.trim().replace(/\/+$/, '');

export const libraryAskUrl = (target: UpstreamTarget): string => `${trimSlash(target.baseURL)}/api/library/ask`;

export const libraryHeaders = (target: UpstreamTarget): Record<string, string> => ({
  authorization: `Bearer ${target.key}`,
  ...target.headers,
});

/** The question asked of the library: the last user message's text (a knowledge base answers one query). */
export function libraryQueryOf(messages: unknown): string {
  const list = Array.isArray(messages) ? (messages as Json[]) : [];
  for (let index = list.length - 1; index >= 0; index -= 1) {
    if (list[index]?.role === 'user') return messageText(list[index]!.content);
  }
  return '';
}

/** OpenAI chat body → `POST {base}/api/library/ask` `{model, query, libraryId: other, stream}`. */
export function buildLibraryRequest(body: Json, call: ChatCall): UpstreamRequest {
  return {
    url: libraryAskUrl(call.target),
    headers: libraryHeaders(call.target),
    body: { model: call.upstreamModel, query: libraryQueryOf(body.messages), libraryId: call.target.other.trim(), stream: call.isStream },
  };
}
