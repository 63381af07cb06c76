import { UpstreamError } from '../../errors.js';
import type { ProviderAdapter, UpstreamRequest, UpstreamTarget } from '../types.js';

/** What every video provider is given and answers (relay/tasks/video.ts keeps the table of them). */

/** A video to make, in the gateway's terms (routes/videos.ts and the Gemini route both give this). */
export interface VideoAsk {
  prompt: string;
  seconds: number;
  /** Veo's `aspectRatio` (16:9 or 9:16). */
  aspectRatio?: string;
  /** Veo's `resolution` (720p, 1080p). */
  resolution?: string;
  negativePrompt?: string;
  /** A first frame: base64 bytes and their type. */
  image?: { mimeType: string; data: string };
}

/**
 * Submits a video to one channel: the upstream's id of it. `signal` ends the exchange, its answer
 * included, at the submit's deadline.
 */
export type SubmitVideo = (
  adapter: ProviderAdapter,
  target: UpstreamTarget,
  model: string,
  ask: VideoAsk,
  signal?: AbortSignal,
) => Promise<string>;

/** What a poll learns of one video task (every video provider answers this). */
export interface VideoState {
  upstreamId: string;
  status: 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE';
  failReason: string;
  progress: string;
  /** The generated videos' download URIs (upstream storage: never shown to a client). */
  uris: string[];
}

/** Veo's one instance and parameters (the Gemini API and Vertex AI take the same). */
export function veoBody(ask: VideoAsk): { instances: Array<Record<string, unknown>>; parameters: Record<string, unknown> } {
  const instance: Record<string, unknown> = { prompt: ask.prompt };
  if (ask.image) instance.image = { bytesBase64Encoded: ask.image.data, mimeType: ask.image.mimeType };
  const parameters: Record<string, unknown> = { durationSeconds: ask.seconds };
  if (ask.aspectRatio) parameters.aspectRatio = ask.aspectRatio;
  if (ask.resolution) parameters.resolution = ask.resolution;
  if (ask.negativePrompt) parameters.negativePrompt = ask.negativePrompt;
  return { instances: [instance], parameters };
}

/**
 * A GET of a video address an upstream gave (hostile until checked): an http(s) URL, with `headers`
 * only when the caller decided they may go there; anything else is the upstream's 502.
 */
export function videoGet(uri: string, provider: string, headersFor: (url: URL) => Record<string, string>): UpstreamRequest {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new UpstreamError(502, `${provider} 视频地址无效`, 'upstream_bad_response', '');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UpstreamError(502, `${provider} 视频地址无效`, 'upstream_bad_response', '');
  return { url: url.toString(), method: 'GET', headers: headersFor(url), body: '' };
}
