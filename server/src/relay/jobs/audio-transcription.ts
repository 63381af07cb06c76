import type { Multipart } from '@fastify/multipart';
import { FormData } from 'undici';
import { readAudioDuration } from '../billing/audio-duration.js';
import { audioSecondsToTokens } from '../billing/audio-tokens.js';
import type { Usage } from '../billing/quota.js';
import { countTextTokens } from '../billing/token-count.js';
import { usageCount } from '../billing/usage-count.js';
import { RelayError, relayErrors } from '../errors.js';
import type { RelayJob } from '../pipeline/relay-job.js';
import type { ProviderAdapter } from '../providers/types.js';

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
export async function readTranscriptionForm(
  parts: () => AsyncIterable<Multipart>,
): Promise<{ fields: Record<string, string>; file: UploadedFile | null }> {
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
 * the mapped model; the answer goes to the client as it came (JSON, text, srt, vtt). Billed
 * (docs/relay.md "Audio") from the first of: the upstream's usage (tokens, with audio input tokens at
 * the audio ratio, or `{type: "duration", seconds}`); verbose_json's `duration`; the audio's length
 * read from the upload here; else the tokens of the text that came back. Durations count 1,000
 * audio tokens a minute.
 */
export function transcriptionJob(
  endpoint: 'transcriptions' | 'translations',
  fields: Record<string, string>,
  file: UploadedFile | null,
): RelayJob {
  const model = fields.model?.trim();
  if (!model) throw relayErrors.badRequest('model 不能为空', 'model_required');
  if (!file) throw relayErrors.badRequest('file 不能为空', 'file_required');
  // Read once, before dispatch: the upload is in memory, and the parser is bounded and never throws.
  const measuredSeconds = readAudioDuration(file.data)?.seconds ?? null;
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
    readUsage: (adapter, response) => (response ? jsonUsage(adapter, response) : null),
    readAnswerUsage: (adapter, answer) => transcriptionUsage(adapter, answer.bytes, answer.contentType, measuredSeconds),
  };
}

/** The usage of one transcription answer (see transcriptionJob); never 0 when text came back. */
export function transcriptionUsage(adapter: ProviderAdapter, bytes: Buffer, contentType: string, measuredSeconds: number | null): Usage {
  let text: string;
  if (contentType.includes('event-stream')) {
    // stream=true (gpt-4o-transcribe): transcript.text.done carries the text and the usage.
    const done = lastEventWith(bytes.toString('utf8'), 'usage') ?? lastEventWith(bytes.toString('utf8'), 'text');
    const usage = done ? jsonUsage(adapter, done) : null;
    if (usage) return usage;
    text = typeof done?.text === 'string' ? done.text : '';
  } else {
    const json = parseObject(bytes, contentType);
    const usage = json ? jsonUsage(adapter, json) : null;
    if (usage) return usage;
    text = json ? (typeof json.text === 'string' ? json.text : '') : bytes.toString('utf8');
  }
  if (measuredSeconds !== null) return durationUsage(measuredSeconds);
  return { promptTokens: 0, completionTokens: countTextTokens(text), cachedTokens: 0 };
}

/** A JSON answer's own usage (tokens or duration), else verbose_json's `duration`; null when neither. */
function jsonUsage(adapter: ProviderAdapter, response: Record<string, unknown>): Usage | null {
  const raw = response.usage;
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const usage = raw as Record<string, unknown>;
    const isDuration =
      usage.type === 'duration' || (usage.seconds !== undefined && usage.input_tokens === undefined && usage.prompt_tokens === undefined);
    if (isDuration) {
      const seconds = readSeconds(usage.seconds);
      if (seconds > 0) return durationUsage(seconds);
    } else {
      const tokens = adapter.chat.readUsage({ usage });
      if (tokens && tokens.promptTokens + tokens.completionTokens > 0) {
        const details = usage.input_token_details as Record<string, unknown> | undefined;
        const audio = Math.min(usageCount(details?.audio_tokens), tokens.promptTokens - tokens.cachedTokens);
        return audio > 0 ? { ...tokens, audioInputTokens: audio } : tokens;
      }
    }
  }
  const seconds = readSeconds(response.duration); // verbose_json
  return seconds > 0 ? durationUsage(seconds) : null;
}

function durationUsage(seconds: number): Usage {
  const tokens = audioSecondsToTokens(seconds);
  return { promptTokens: tokens, completionTokens: 0, cachedTokens: 0, audioInputTokens: tokens };
}

/** Seconds given by an upstream: a positive finite number, or a decimal string of one; else 0. */
function readSeconds(value: unknown): number {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,9}(\.\d{1,9})?$/.test(value) ? Number(value) : 0;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}

/** The body as a JSON object when it is one (content type JSON, or text starting with "{"). */
function parseObject(bytes: Buffer, contentType: string): Record<string, unknown> | null {
  if (!contentType.includes('json')) {
    let at = 0;
    while (at < bytes.length && (bytes[at] === 0x20 || bytes[at] === 0x0a || bytes[at] === 0x0d || bytes[at] === 0x09)) at += 1;
    if (bytes[at] !== 0x7b /* { */) return null;
  }
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The last SSE `data:` event that is a JSON object with `key`. */
function lastEventWith(body: string, key: string): Record<string, unknown> | null {
  const lines = body.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i]!;
    if (!line.startsWith('data:')) continue;
    const event = parseObject(Buffer.from(line.slice(5).trim()), 'json');
    if (event && event[key] !== undefined) return event;
  }
  return null;
}
