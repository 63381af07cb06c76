import { RelayError } from '../../errors.js';
import type { Json } from '@modelgate/shared';

/** A malformed or unconvertible content part: a 400 naming where it is (never dropped in silence). */
export const invalidPart = (path: string, problem: string) =>
  new RelayError(400, 'invalid_content_part', `${path}: ${problem}`, false, 'invalid_request_error');

const isObject = (value: unknown): value is Json => !!value && typeof value === 'object' && !Array.isArray(value);
const mediaUrl = /^(data:[^,]*;base64,|https?:\/\/|gs:\/\/)/;

/**
 * Checks the canonical (OpenAI) content parts a converter reads before it converts them: each part
 * an object with a `type` the channel can take (`supported`) and the fields that type needs. OpenAI
 * upstreams judge parts themselves; a converter would otherwise skip what it cannot read.
 */
export function checkContentParts(messages: unknown, channel: string, supported: ReadonlySet<string>): void {
  if (!Array.isArray(messages)) return;
  messages.forEach((message: unknown, i) => {
    const content = isObject(message) ? message.content : undefined;
    if (!Array.isArray(content)) return;
    content.forEach((part: unknown, j) => {
      const path = `messages[${i}].content[${j}]`;
      if (!isObject(part)) throw invalidPart(path, '内容片段必须是对象');
      const { type } = part;
      if (typeof type !== 'string') throw invalidPart(path, '缺少 type');
      if (!supported.has(type)) throw invalidPart(path, `${channel} 渠道不支持内容类型 ${type.slice(0, 40)}`);
      if ((type === 'text' || type === 'input_text' || type === 'refusal') && typeof (part.text ?? part.refusal) !== 'string')
        throw invalidPart(path, 'text 必须是字符串');
      if (type === 'image_url') {
        const image = part.image_url;
        const url = typeof image === 'string' ? image : isObject(image) ? image.url : undefined;
        if (typeof url !== 'string' || !mediaUrl.test(url)) throw invalidPart(path, 'image_url.url 必须是 http(s) 地址或 base64 data URL');
      }
      if (type === 'file') {
        const file = isObject(part.file) ? part.file : {};
        if (typeof file.file_data !== 'string' || !file.file_data.startsWith('data:'))
          throw invalidPart(path, `${channel} 渠道的 file 需要 file_data（base64 data URL），不支持 file_id`);
      }
      if (type === 'input_audio' && (!isObject(part.input_audio) || typeof part.input_audio.data !== 'string'))
        throw invalidPart(path, 'input_audio.data 必须是 base64 字符串');
    });
  });
}
