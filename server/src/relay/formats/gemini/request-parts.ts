/** Gemini `contents` → OpenAI chat messages. */

import { invalidPart } from '../../providers/shared/content-parts.js';
import type { Json } from '@modelgate/shared';

let sequence = 0;
const newCallId = () => `call_${Date.now().toString(36)}${(sequence++).toString(36)}`;

function mediaItem(part: Json): Json | null {
  const inline = part.inlineData as { mimeType?: unknown; data?: unknown } | undefined;
  if (inline && typeof inline.data === 'string') {
    const mime = typeof inline.mimeType === 'string' ? inline.mimeType : 'application/octet-stream';
    if (mime.startsWith('audio/')) return { type: 'input_audio', input_audio: { data: inline.data, format: mime.slice('audio/'.length) } };
    const url = `data:${mime};base64,${inline.data}`;
    if (mime.startsWith('image/')) return { type: 'image_url', image_url: { url } };
    return { type: 'file', file: { file_data: url } };
  }
  const file = part.fileData as { fileUri?: unknown } | undefined;
  if (file && typeof file.fileUri === 'string') return { type: 'image_url', image_url: { url: file.fileUri } };
  return null;
}

/** A message content: a plain string when it is text only, else OpenAI content parts. */
function contentOf(items: Json[]): string | Json[] {
  return items.every((item) => item.type === 'text') ? items.map((item) => String(item.text)).join('') : items;
}

const isObject = (value: unknown): value is Json => !!value && typeof value === 'object' && !Array.isArray(value);

/** Malformed contents and parts are the caller's 400 (in Google's shape), not skipped. */
function checkContents(contents: unknown): void {
  if (contents === undefined) return;
  if (!Array.isArray(contents)) throw invalidPart('contents', 'contents 必须是数组');
  contents.forEach((content: unknown, i) => {
    if (!isObject(content) || (content.parts !== undefined && !Array.isArray(content.parts)))
      throw invalidPart(`contents[${i}]`, 'parts 必须是数组');
    ((content.parts ?? []) as unknown[]).forEach((part, j) => {
      const path = `contents[${i}].parts[${j}]`;
      if (!isObject(part)) throw invalidPart(path, 'part 必须是对象');
      if (part.text !== undefined && typeof part.text !== 'string') throw invalidPart(path, 'text 必须是字符串');
      if (part.inlineData !== undefined && (!isObject(part.inlineData) || typeof part.inlineData.data !== 'string'))
        throw invalidPart(path, 'inlineData.data 必须是 base64 字符串');
      if (part.fileData !== undefined && (!isObject(part.fileData) || typeof part.fileData.fileUri !== 'string'))
        throw invalidPart(path, 'fileData.fileUri 必须是字符串');
      if (part.functionCall !== undefined && (!isObject(part.functionCall) || typeof part.functionCall.name !== 'string'))
        throw invalidPart(path, 'functionCall.name 必须是字符串');
      if (part.functionResponse !== undefined && (!isObject(part.functionResponse) || typeof part.functionResponse.name !== 'string'))
        throw invalidPart(path, 'functionResponse.name 必须是字符串');
    });
  });
}

/** Converts contents; function calls get ids that the following functionResponses (by name) reuse. */
export function contentsToMessages(contents: unknown): Json[] {
  checkContents(contents);
  const messages: Json[] = [];
  const pendingIds = new Map<string, string[]>();
  for (const content of (Array.isArray(contents) ? contents : []) as Json[]) {
    const parts = (Array.isArray(content.parts) ? content.parts : []) as Json[];
    const items: Json[] = [];
    const toolCalls: Json[] = [];
    const toolResults: Json[] = [];
    for (const part of parts) {
      if (typeof part.text === 'string') {
        if (part.thought !== true) items.push({ type: 'text', text: part.text });
      } else if (part.functionCall && typeof part.functionCall === 'object') {
        const call = part.functionCall as Json;
        const name = String(call.name ?? '');
        const id = typeof call.id === 'string' && call.id ? call.id : newCallId();
        pendingIds.set(name, [...(pendingIds.get(name) ?? []), id]);
        toolCalls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(call.args ?? {}) } });
      } else if (part.functionResponse && typeof part.functionResponse === 'object') {
        const result = part.functionResponse as Json;
        const name = String(result.name ?? '');
        const queue = pendingIds.get(name) ?? [];
        const id = typeof result.id === 'string' && result.id ? result.id : (queue.shift() ?? newCallId());
        toolResults.push({ role: 'tool', tool_call_id: id, content: JSON.stringify(result.response ?? {}) });
      } else {
        const item = mediaItem(part);
        if (item) items.push(item);
      }
    }
    if (content.role === 'model') {
      if (items.length === 0 && toolCalls.length === 0) continue;
      const message: Json = { role: 'assistant', content: items.length > 0 ? contentOf(items) : null };
      if (toolCalls.length > 0) message.tool_calls = toolCalls;
      messages.push(message);
    } else {
      messages.push(...toolResults);
      if (items.length > 0) messages.push({ role: 'user', content: contentOf(items) });
    }
  }
  return messages;
}
