/** OpenAI chat messages → Gemini `contents` and `systemInstruction`. */
import type { Json } from '@modelgate/shared';

export type GeminiPart = Json;
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

const mimeByExtension: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  pdf: 'application/pdf',
  mp3: 'audio/mp3',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  txt: 'text/plain',
};

/** A guess from the URL's extension, for `fileData` (Gemini requires a mimeType). */
export function guessMimeType(url: string): string {
  const path = url.split(/[?#]/)[0] ?? '';
  const extension = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return mimeByExtension[extension] ?? 'image/jpeg';
}

/** A `data:` URL → inlineData; an http(s) URL → fileData; anything else → null. */
export function mediaPart(url: string, mimeHint?: string): GeminiPart | null {
  const match = /^data:([^;,]+)?(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  if (match) return { inlineData: { mimeType: match[1] ?? mimeHint ?? 'application/octet-stream', data: match[2] } };
  if (/^(https?|gs):\/\//.test(url)) return { fileData: { mimeType: mimeHint ?? guessMimeType(url), fileUri: url } };
  return null;
}

function contentParts(content: unknown): GeminiPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  if (!Array.isArray(content)) return [];
  const parts: GeminiPart[] = [];
  for (const item of content as Json[]) {
    if (item.type === 'text' && typeof item.text === 'string') parts.push({ text: item.text });
    else if (item.type === 'image_url') {
      const image = item.image_url as { url?: unknown } | string | undefined;
      const url = typeof image === 'string' ? image : image?.url;
      const part = typeof url === 'string' ? mediaPart(url) : null;
      if (part) parts.push(part);
    } else if (item.type === 'input_audio') {
      const audio = item.input_audio as { data?: unknown; format?: unknown } | undefined;
      if (typeof audio?.data === 'string')
        parts.push({ inlineData: { mimeType: `audio/${String(audio.format ?? 'wav')}`, data: audio.data } });
    } else if (item.type === 'file') {
      const file = item.file as { file_data?: unknown } | undefined;
      const part = typeof file?.file_data === 'string' ? mediaPart(file.file_data) : null;
      if (part) parts.push(part);
    }
  }
  return parts;
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : contentParts(content)
        .map((part) => (typeof part.text === 'string' ? part.text : ''))
        .join('');

function parseArgs(text: unknown): Json {
  if (typeof text !== 'string' || text.trim() === '') return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Json) : { value: parsed };
  } catch {
    return { arguments: text };
  }
}

/** A tool message's content as a functionResponse.response (Gemini wants an object). */
function toolResponse(content: unknown): Json {
  const text = textOf(content);
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Json;
    return { content: parsed };
  } catch {
    return { content: text };
  }
}

export interface ConvertOptions {
  /** Gemini 3 requires a thought signature on replayed function calls; OpenAI clients do not keep one. */
  needsThoughtSignature: boolean;
}

/** Converts the OpenAI `messages` array; consecutive tool results share one `user` turn. */
export function convertMessages(
  messages: unknown,
  options: ConvertOptions,
): { contents: GeminiContent[]; systemInstruction?: { parts: GeminiPart[] } } {
  const contents: GeminiContent[] = [];
  const systemParts: GeminiPart[] = [];
  const toolNames = new Map<string, string>();
  let previousWasTool = false;
  for (const message of (Array.isArray(messages) ? messages : []) as Json[]) {
    const role = message.role;
    if (role === 'system' || role === 'developer') {
      const text = textOf(message.content);
      if (text) systemParts.push({ text });
      previousWasTool = false;
      continue;
    }
    if (role === 'tool' || role === 'function') {
      const id = typeof message.tool_call_id === 'string' ? message.tool_call_id : '';
      const name = toolNames.get(id) ?? (typeof message.name === 'string' ? message.name : id);
      const part = { functionResponse: { name, response: toolResponse(message.content) } };
      const last = contents[contents.length - 1];
      if (previousWasTool && last) last.parts.push(part);
      else contents.push({ role: 'user', parts: [part] });
      previousWasTool = true;
      continue;
    }
    previousWasTool = false;
    if (role === 'assistant') {
      const parts = contentParts(message.content);
      for (const call of (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Json[]) {
        const fn = (call.function ?? {}) as Json;
        const name = String(fn.name ?? '');
        if (typeof call.id === 'string') toolNames.set(call.id, name);
        const part: GeminiPart = { functionCall: { name, args: parseArgs(fn.arguments) } };
        if (options.needsThoughtSignature) part.thoughtSignature = 'skip_thought_signature_validator';
        parts.push(part);
      }
      if (parts.length > 0) contents.push({ role: 'model', parts });
      continue;
    }
    const parts = contentParts(message.content);
    if (parts.length > 0) contents.push({ role: 'user', parts });
  }
  return systemParts.length > 0 ? { contents, systemInstruction: { parts: systemParts } } : { contents };
}
