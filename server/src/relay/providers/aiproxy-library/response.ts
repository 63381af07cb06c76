import { randomUUID } from 'node:crypto';
import { UpstreamError } from '../../errors.js';
import { createChunkBuilder, openAiCompletion } from '../shared/openai-chunks.js';
import type { ConvertedEvents, StreamEvent } from '../types.js';
import type { Json } from '@modelgate/shared';

/** `documents[{title, url}]` as a Markdown reference list appended to the answer ('' when none). */
export function documentLinks(documents: unknown): string {
  if (!Array.isArray(documents)) return '';
  const links = (documents as Json[])
    .filter((doc) => doc && typeof doc === 'object' && (typeof doc.title === 'string' || typeof doc.url === 'string'))
    .map((doc, index) => {
      const title = (typeof doc.title === 'string' && doc.title.trim() ? doc.title : typeof doc.url === 'string' ? doc.url : '').replace(
        /[[\]]/g,
        '',
      );
      const url =
        typeof doc.url === 'string'
          ? doc.url.replace(/[()\s]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
          : '';
      return url ? `${index + 1}. [${title}](${url})` : `${index + 1}. ${title}`;
    });
  return links.length > 0 ? `\n\n参考资料：\n${links.join('\n')}` : '';
}

/**
 * `success:false` (or a bare `{errCode, message}`) → UpstreamError. The library reports errors with
 * HTTP 200; a key or permission problem is the channel's (401, auto-disable), a missing library a
 * request error (400), anything else the provider's (500).
 */
export function throwIfLibraryError(json: Json, raw: string): void {
  if (json.success !== false && json.errCode === undefined) return;
  if (json.success === true) return;
  const message = typeof json.message === 'string' && json.message ? json.message : 'AI Proxy 知识库返回错误';
  const code = json.errCode === undefined || json.errCode === null ? null : String(json.errCode);
  const text = `${code ?? ''} ${message}`.toLowerCase();
  const status = /auth|token|key|unauthor|forbidden|permission|401|403/.test(text)
    ? 401
    : /library|not.?found|param|invalid|404/.test(text)
      ? 400
      : 500;
  throw new UpstreamError(status, message, code, raw);
}

/** `{success, answer, documents}` → an OpenAI completion; the library reports no usage (the relay counts). */
export function parseLibraryResponse(json: Json, model: string): { completion: Json; usage: null } {
  throwIfLibraryError(json, JSON.stringify(json));
  const answer = (typeof json.answer === 'string' ? json.answer : '') + documentLinks(json.documents);
  return { completion: openAiCompletion(randomUUID(), model, { role: 'assistant', content: answer }, 'stop', null), usage: null };
}

/** SSE `data:{content, finish, documents}` → OpenAI chunks; the documents close the answer as links. */
export function createLibraryStreamTransform(model: string) {
  const chunks = createChunkBuilder(model);
  let isFinished = false;
  const finish = (documents: unknown): ConvertedEvents => {
    isFinished = true;
    const links = documentLinks(documents);
    return { chunks: [...(links ? [chunks.delta({ content: links })] : []), ...chunks.finish('stop', null)], text: links, usage: null };
  };
  return {
    onEvent(event: StreamEvent): ConvertedEvents {
      if (isFinished || event.data.trim() === '[DONE]') return { chunks: [], text: '', usage: null };
      let json: Json;
      try {
        json = JSON.parse(event.data) as Json;
      } catch {
        return { chunks: [], text: '', usage: null };
      }
      if (!json || typeof json !== 'object') return { chunks: [], text: '', usage: null };
      throwIfLibraryError(json, event.data);
      const content = typeof json.content === 'string' ? json.content : '';
      const out: ConvertedEvents = { chunks: content ? [chunks.delta({ content })] : [], text: content, usage: null };
      if (json.finish === true) {
        const closing = finish(json.documents);
        return { chunks: [...out.chunks, ...closing.chunks], text: content + closing.text, usage: null };
      }
      return out;
    },
    finish(): ConvertedEvents {
      return isFinished ? { chunks: [], text: '', usage: null } : finish(undefined);
    },
  };
}
