import { RelayError } from '../errors.js';
import { propertiesOf, videoIdPrefix, type VideoRow } from '../tasks/video.js';
import type { Json } from '@modelgate/shared';

/** OpenAI's `size` → Veo's aspect ratio and resolution. */
const sizes: Record<string, { aspectRatio: string; resolution: string }> = {
  '1280x720': { aspectRatio: '16:9', resolution: '720p' },
  '720x1280': { aspectRatio: '9:16', resolution: '720p' },
  '1920x1080': { aspectRatio: '16:9', resolution: '1080p' },
  '1080x1920': { aspectRatio: '9:16', resolution: '1080p' },
};

const badVideo = (message: string) => new RelayError(400, 'invalid_request', message, false, 'invalid_request_error');

export function veoShapeOf(size: string): { aspectRatio: string; resolution: string } {
  const shape = sizes[size];
  if (!shape) throw badVideo(`size 只支持 ${Object.keys(sizes).join('、')}`);
  return shape;
}

/** Veo's aspect ratio and resolution → the OpenAI `size` a video reports. */
export function sizeOf(aspectRatio: string | undefined, resolution: string | undefined): string {
  const found = Object.entries(sizes).find(
    ([, shape]) => shape.aspectRatio === (aspectRatio ?? '16:9') && shape.resolution === (resolution ?? '720p'),
  );
  if (!found) throw badVideo('aspectRatio 只支持 16:9、9:16，resolution 只支持 720p、1080p');
  return found[0];
}

/** A video's length: whole seconds from 1 to 60 (each provider takes its own few). */
export function secondsOf(value: unknown, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 60) throw badVideo('seconds 必须是 1 到 60 之间的整数');
  return seconds;
}

const statuses: Record<string, string> = { SUCCESS: 'completed', FAILURE: 'failed', IN_PROGRESS: 'in_progress' };

const percent = (progress: string): number => {
  const value = Number.parseInt(progress, 10);
  return Number.isFinite(value) ? Math.min(100, Math.max(0, value)) : 0;
};

/** A video task as OpenAI's Videos API answers it. */
export function openAiVideoOf(row: VideoRow): Json {
  const properties = propertiesOf(row);
  const status = statuses[row.status] ?? 'queued';
  return {
    id: row.task_id,
    object: 'video',
    model: properties.model,
    status,
    progress: status === 'completed' ? 100 : percent(row.progress),
    created_at: row.submit_time,
    completed_at: status === 'completed' || status === 'failed' ? row.finish_time || null : null,
    expires_at: null,
    prompt: properties.prompt,
    seconds: String(properties.seconds),
    size: properties.size,
    remixed_from_video_id: null,
    error: status === 'failed' ? { code: 'video_generation_failed', message: row.fail_reason || 'Video generation failed' } : null,
  };
}

/** The Gemini id of a video (what follows `files/` and `operations/`: lower-case letters and digits, as @google/genai reads it). */
export const geminiIdOf = (taskId: string): string => taskId.slice(videoIdPrefix.length);
export const taskIdOfGemini = (id: string): string => `${videoIdPrefix}${id}`;

/** A video task as Gemini's long-running operation (`models/{model}/operations/{id}`). */
export function geminiOperationOf(row: VideoRow, serverAddress: string | null): Json {
  const properties = propertiesOf(row);
  const id = geminiIdOf(row.task_id);
  const operation: Json = { name: `models/${properties.model}/operations/${id}` };
  if (row.status === 'SUCCESS') {
    operation.done = true;
    operation.response = {
      '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse',
      // Absolute from ServerAddress only; without it the file's name, which @google/genai downloads as well.
      generateVideoResponse: {
        generatedSamples: [{ video: { uri: serverAddress ? `${serverAddress}/v1beta/files/${id}:download?alt=media` : `files/${id}` } }],
      },
    };
  } else if (row.status === 'FAILURE') {
    operation.done = true;
    operation.error = { code: 13, message: row.fail_reason || 'Video generation failed' };
  }
  return operation;
}
