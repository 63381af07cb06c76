import type { Multipart } from '@fastify/multipart';
import { FormData } from 'undici';
import type { Usage } from '../billing/quota.js';
import { countTextTokens } from '../billing/token-count.js';
import { usageCount } from '../billing/usage-count.js';
import { RelayError, relayErrors } from '../errors.js';
import type { RelayJob } from '../pipeline/relay-job.js';
import type { ProviderAdapter } from '../providers/types.js';
import type { UploadedFile } from './audio-transcription.js';
import { estimatePromptTokens } from './json-body.js';

/** Images an edit takes (gpt-image-1 takes up to 16 as `image[]`); plus one mask. */
export const maxEditImages = 16;
/** Text fields of an image form (prompt, n, size, ...) and the longest one (a 32,000-character prompt in UTF-8). */
export const imageFormLimits = { files: maxEditImages + 1, fields: 30, fieldSize: 128 * 1024 };

export interface ImageForm {
  fields: Record<string, string>;
  images: UploadedFile[];
  mask: UploadedFile | null;
}

const imageFields = new Set(['image', 'image[]']);

/**
 * Reads the multipart form of an image edit or variation: the images (`image`, or `image[]` when
 * several), the mask and the text fields. Every file together is bounded by `maxBytes`
 * (MAX_REQUEST_BODY_MB); anything malformed, truncated or over a limit is the caller's 4xx.
 */
export async function readImageForm(parts: () => AsyncIterable<Multipart>, maxBytes: number): Promise<ImageForm> {
  const form: ImageForm = { fields: {}, images: [], mask: null };
  let total = 0;
  // The first refusal; the rest of the form is still read (and dropped) so the connection stays usable for the answer.
  let refusal: RelayError | null = null;
  try {
    for await (const part of parts()) {
      if (part.type === 'file') {
        // Counted as it comes: all files together stay within maxBytes in memory (the form's own limits bound what is dropped).
        const isWanted = imageFields.has(part.fieldname) || (part.fieldname === 'mask' && !form.mask);
        if (!isWanted) refusal ??= relayErrors.badRequest(`不支持的文件字段：${part.fieldname}`, 'invalid_file_field');
        const chunks: Buffer[] = [];
        for await (const chunk of part.file as AsyncIterable<Buffer>) {
          total += chunk.length;
          if (total <= maxBytes && !refusal) chunks.push(chunk);
        }
        if (total > maxBytes || part.file.truncated) refusal ??= tooLarge();
        if (refusal) continue;
        const file = {
          fieldname: part.fieldname,
          filename: part.filename || 'image.png',
          mimetype: part.mimetype,
          data: Buffer.concat(chunks),
        };
        if (part.fieldname === 'mask') form.mask = file;
        else form.images.push(file);
      } else {
        if (part.valueTruncated || part.fieldnameTruncated) refusal ??= tooLarge();
        form.fields[part.fieldname] = String(part.value);
      }
    }
  } catch (error) {
    if (error instanceof RelayError) throw error;
    const status = (error as { statusCode?: unknown }).statusCode;
    if (status === 413) throw tooLarge();
    throw relayErrors.badRequest('multipart/form-data 请求体格式错误或不完整', 'invalid_multipart');
  }
  if (refusal) throw refusal;
  return form;
}

const tooLarge = () => new RelayError(413, 'payload_too_large', '请求体过大（文件或字段超出限制）');

/** `n`: absent is 1; else an integer from 1 to 10 (OpenAI's range), or a 400. */
function readImageCount(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 1;
  const n = /^\s*\d{1,2}\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 10) throw relayErrors.badRequest('n 必须是 1 到 10 之间的整数', 'invalid_n');
  return n;
}

/**
 * POST /v1/images/edits and /v1/images/variations (multipart, docs/relay.md "Images"). The form is
 * rebuilt per channel with the mapped model; the answer passes through as it came. Billed per image
 * (ModelPrice × n) for priced models, else by the upstream's token usage (gpt-image-*:
 * `input_tokens`, `output_tokens`; also the completed event of `stream=true`), else the prompt's tokens.
 */
export function imageEditJob(kind: 'edits' | 'variations', form: ImageForm): RelayJob {
  const { fields, images, mask } = form;
  if (images.length === 0) throw relayErrors.badRequest('image 不能为空', 'image_required');
  const prompt = fields.prompt ?? '';
  if (kind === 'edits') {
    if (!prompt.trim()) throw relayErrors.badRequest('prompt 不能为空', 'prompt_required');
    if (images.length > maxEditImages) throw relayErrors.badRequest(`最多只能上传 ${maxEditImages} 张图片`, 'too_many_images');
  } else {
    if (images.length > 1) throw relayErrors.badRequest('variations 只接受一张图片', 'too_many_images');
    if (mask) throw relayErrors.badRequest('variations 不接受 mask', 'invalid_file_field');
  }
  const calls = readImageCount(fields.n);
  const model = fields.model?.trim() || 'dall-e-2';
  return {
    endpoint: kind === 'edits' ? 'image-edits' : 'image-variations',
    model,
    isStream: false,
    clientWantsUsage: false,
    promptTokens: estimatePromptTokens(prompt),
    maxTokens: 0,
    calls,
    promptText: () => prompt,
    buildBody: (_channel, { upstreamModel }) => {
      const body = new FormData();
      const sent = { ...fields, model: upstreamModel };
      for (const [name, value] of Object.entries(sent)) body.append(name, value);
      for (const file of mask ? [...images, mask] : images) {
        body.append(file.fieldname, new Blob([new Uint8Array(file.data)], { type: file.mimetype }), file.filename);
      }
      return { kind: 'form', value: body };
    },
    countPromptTokens: () => countTextTokens(prompt),
    readUsage: (adapter, response) => imageUsage(adapter, response?.usage),
    readAnswerUsage: (adapter, answer) =>
      imageAnswerUsage(adapter, answer.bytes, answer.contentType) ?? {
        promptTokens: countTextTokens(prompt),
        completionTokens: 0,
        cachedTokens: 0,
      },
  };
}

/** The token usage of an image answer: the JSON's `usage`, or a stream's last event that has one; null when none. */
export function imageAnswerUsage(adapter: ProviderAdapter, bytes: Buffer, contentType: string): Usage | null {
  let usage: unknown;
  if (contentType.includes('event-stream')) {
    const lines = bytes.toString('utf8').split(/\r?\n/);
    for (let i = lines.length - 1; i >= 0 && usage === undefined; i -= 1) {
      const line = lines[i]!;
      if (line.startsWith('data:') && line.includes('"usage"')) usage = parseObject(line.slice(5))?.usage;
    }
  } else {
    usage = parseObject(bytes.toString('utf8'))?.usage;
  }
  return imageUsage(adapter, usage);
}

/**
 * gpt-image-* usage: `input_tokens` as the prompt, of which `input_tokens_details.image_tokens` are
 * image input (billed at the image ratio), `output_tokens` as the completion; null when absent or empty.
 */
export function imageUsage(adapter: ProviderAdapter, raw: unknown): Usage | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const usage = raw as Record<string, unknown>;
  const read = adapter.chat.readUsage({ usage });
  if (!read || read.promptTokens + read.completionTokens <= 0) return null;
  const details = usage.input_tokens_details as Record<string, unknown> | undefined;
  const image = Math.min(usageCount(details?.image_tokens), read.promptTokens - read.cachedTokens);
  return image > 0 ? { ...read, imageInputTokens: image } : read;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
