import { FormData } from 'undici';
import { countTextTokens } from '../billing/token-count.js';
import { relayErrors } from '../errors.js';
import type { RelayJob } from '../pipeline/relay-call.js';

export interface UploadedFile {
  fieldname: string;
  filename: string;
  mimetype: string;
  data: Buffer;
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
