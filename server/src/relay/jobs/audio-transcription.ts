import type { Multipart } from '@fastify/multipart';
import { FormData } from 'undici';
import { countTextTokens } from '../billing/token-count.js';
import { RelayError, relayErrors } from '../errors.js';
import type { RelayJob } from '../pipeline/relay-call.js';

export interface UploadedFile {
  fieldname: string;
  filename: string;
  mimetype: string;
  data: Buffer;
}

/**
 * Reads the multipart form of an audio request (the first file and the text fields). Anything
 * malformed, truncated, with a wrong or missing boundary, or over a limit is the caller's 4xx
 * (busboy's own errors carry no status and would otherwise be a 500).
 */
export async function readTranscriptionForm(parts: () => AsyncIterable<Multipart>): Promise<{ fields: Record<string, string>; file: UploadedFile | null }> {
  const fields: Record<string, string> = {};
  let file: UploadedFile | null = null;
  try {
    for await (const part of parts()) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        if (!file) file = { fieldname: part.fieldname, filename: part.filename || 'audio', mimetype: part.mimetype, data };
      } else {
        fields[part.fieldname] = String(part.value);
      }
    }
  } catch (error) {
    throw formError(error);
  }
  return { fields, file };
}

function formError(error: unknown): RelayError {
  if (error instanceof RelayError) return error;
  const status = (error as { statusCode?: unknown }).statusCode;
  if (status === 413) return new RelayError(413, 'payload_too_large', '请求体过大（文件或字段超出限制）');
  return relayErrors.badRequest('multipart/form-data 请求体格式错误或不完整', 'invalid_multipart');
}

/**
 * POST /v1/audio/transcriptions and /translations (multipart). The form is rebuilt per channel with
 * the mapped model. Billed from the upstream usage when given, else the returned text's tokens.
 */
export function transcriptionJob(endpoint: 'transcriptions' | 'translations', fields: Record<string, string>, file: UploadedFile | null): RelayJob {
  const model = fields.model?.trim();
  if (!model) throw relayErrors.badRequest('model 不能为空', 'model_required');
  if (!file) throw relayErrors.badRequest('file 不能为空', 'file_required');
  return {
    endpoint,
    model,
    isStream: false,
    clientWantsUsage: false,
    promptTokens: 0,
    maxTokens: 0,
    calls: 1,
    buildBody: (_channel, { upstreamModel }) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, name === 'model' ? upstreamModel : value);
      form.append(file.fieldname, new Blob([new Uint8Array(file.data)], { type: file.mimetype }), file.filename);
      return { kind: 'form', value: form };
    },
    countPromptTokens: () => 0,
    readUsage: (adapter, response) => (response?.usage ? adapter.chat.readUsage(response) : null),
    countCompletionTokens: (response) => countTextTokens(typeof response.text === 'string' ? response.text : ''),
  };
}
