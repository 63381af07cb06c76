import type { AppContext } from '../../context.js';
import { blockedCause, callbackDispatcher, fetchGuardOf, outboundUrlProblem } from '../../lib/outbound-guard.js';
import { RelayError, UpstreamError } from '../errors.js';
import type { UpstreamRequest, UpstreamResponse } from '../providers/types.js';
import { sendUpstream } from '../providers/upstream-request.js';
import { toRelayChannel } from '../routing/channel-index.js';
import type { RelayState } from '../state.js';
import { targetOf } from '../upstream/dispatch.js';
import { ownVideo, videoDownload, type VideoRow } from './video.js';

const maxRedirects = 3;
const timeouts = { headersTimeout: 60_000, bodyTimeout: 120_000 };
const unavailable = () => new RelayError(502, 'video_content_unavailable', '无法从上游取得视频内容', true, 'upstream_error');

/**
 * The content type a video is answered with: the upstream's when it names a video, else MP4 (what every
 * video provider makes). Never the upstream's word as such: a `text/html` answer would be a page on the
 * gateway's origin, and the Gemini download (`?key=`) is a link a browser opens.
 */
function videoTypeOf(type: unknown): string {
  return typeof type === 'string' && /^video\/[\w.+-]+$/i.test(type.split(';')[0]!.trim()) ? type : 'video/mp4';
}

/** A video's bytes as the client is answered: the whole video (200) or the part it asked for (206). */
export interface VideoContent {
  status: 200 | 206;
  /**
   * The answer's headers: a video content type, nosniff, no caching, and the upstream's content-length,
   * content-range and accept-ranges when well formed.
   */
  headers: Record<string, string>;
  body: AsyncIterable<Buffer>;
}

/**
 * The one byte range a client asked for (`bytes=0-1023`, `bytes=1024-`, `bytes=-500`), passed on so a
 * player can seek; anything else (several ranges, another unit, junk) is ignored and the whole video
 * answered, as RFC 9110 §14.2 lets a server do.
 */
export function videoRangeOf(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string' || header.length > 64) return null;
  const range = header.trim();
  return /^bytes=(\d{1,15}-\d{0,15}|-\d{1,15})$/.test(range) ? range : null;
}

const digits = /^\d{1,15}$/;
const contentRange = /^bytes \d{1,15}-\d{1,15}\/(\d{1,15}|\*)$/;

/** The answer's headers; the upstream's length and range only when well formed (the client's player trusts them). */
function videoHeadersOf(response: UpstreamResponse, isPartial: boolean): Record<string, string> | null {
  const headers: Record<string, string> = {
    'content-type': videoTypeOf(response.headers['content-type']),
    'x-content-type-options': 'nosniff',
    'cache-control': 'private, no-store',
  };
  const { 'content-length': length, 'content-range': range, 'accept-ranges': acceptRanges } = response.headers;
  if (typeof length === 'string' && digits.test(length)) headers['content-length'] = length;
  if (typeof acceptRanges === 'string' && acceptRanges.trim().toLowerCase() === 'bytes') headers['accept-ranges'] = 'bytes';
  if (isPartial) {
    if (typeof range !== 'string' || !contentRange.test(range)) return null;
    headers['content-range'] = range;
  }
  return headers;
}

const originOf = (url: string): string | null => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/**
 * A finished video's bytes, fetched from its channel for its owner (the caller checked ownership):
 * the upstream's storage address never reaches the client. Redirects are followed by hand, so the
 * channel's key goes to no host but its own. A request on the channel's base URL origin, or one the
 * provider gave the channel's credentials (the storage Vertex reads with them), is sent as the relay
 * sends; any other goes to an address only the upstream named (a CDN, a redirect elsewhere), so it
 * is sent under the SSRF protection (lib/outbound-guard.ts), as the Midjourney image proxy is: a
 * hostile upstream cannot have a caller read the gateway's own network (a cloud metadata service).
 */
export async function fetchVideoContent(
  ctx: AppContext,
  relay: RelayState,
  row: VideoRow,
  range: string | null = null,
): Promise<VideoContent> {
  const channelRow = await ctx.storage.db.selectFrom('channels').selectAll().where('id', '=', row.channel_id).executeTakeFirst();
  const channel = channelRow ? toRelayChannel(channelRow) : null;
  if (!channel?.adapter) throw new RelayError(503, 'channel_unavailable', `视频的渠道 #${row.channel_id} 已不可用`);
  const target = targetOf(channel, relay.dispatcher);
  let request: UpstreamRequest;
  try {
    request = await videoDownload(channel, target, row);
  } catch (error) {
    // A stored address the upstream gave that is no URL (or a token the channel cannot get) is the upstream's fault, not the caller's.
    if (error instanceof RelayError && !(error instanceof UpstreamError)) throw error;
    throw unavailable();
  }
  const guard = fetchGuardOf(ctx.options);
  const home = originOf(channel.baseURL);
  for (let hop = 0; hop <= maxRedirects; hop += 1) {
    const isChannelOwn = Object.keys(request.headers).length > 0 || (home !== null && originOf(request.url) === home);
    const problem = isChannelOwn ? null : outboundUrlProblem(request.url, guard);
    if (problem) {
      relay.log.warn({ taskId: row.task_id, reason: problem }, 'video address refused by the SSRF protection');
      throw unavailable();
    }
    let response: UpstreamResponse;
    try {
      const dispatcher = isChannelOwn ? relay.dispatcher : callbackDispatcher(ctx.config.extraCaFile, guard);
      // The range is no credential: it goes with every hop, the key only to its own origin.
      const sent = range === null ? request : { ...request, headers: { ...request.headers, range } };
      response = await sendUpstream(channel.adapter, sent, { ...timeouts, dispatcher });
    } catch (error) {
      if (blockedCause(error)) relay.log.warn({ taskId: row.task_id }, 'video address refused by the SSRF protection');
      throw unavailable();
    }
    const location = response.headers.location;
    if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
      await response.body.dump?.().catch(() => undefined);
      let next: URL;
      try {
        next = new URL(location, request.url);
      } catch {
        throw unavailable();
      }
      if (next.protocol !== 'https:' && next.protocol !== 'http:') throw unavailable();
      // The key only ever goes to the address it was first sent to.
      const isSameOrigin = next.origin === new URL(request.url).origin;
      request = { url: next.toString(), method: 'GET', headers: isSameOrigin ? request.headers : {}, body: '' };
      continue;
    }
    if (response.statusCode === 416 && range !== null) {
      await response.body.dump?.().catch(() => undefined);
      throw new RelayError(416, 'range_not_satisfiable', '请求的范围超出了视频的长度', false, 'invalid_request_error');
    }
    // 206 only for a range that was asked for; other 2xx answers (204, 203…) are no video.
    const isPartial = response.statusCode === 206 && range !== null;
    const headers = isPartial || response.statusCode === 200 ? videoHeadersOf(response, isPartial) : null;
    if (!headers) {
      await response.body.dump?.().catch(() => undefined);
      throw unavailable();
    }
    return { status: isPartial ? 206 : 200, headers, body: response.body };
  }
  throw unavailable();
}

/** A video's bytes for the console (relay/facade.ts): the viewer's own video, or any for an admin (`userId` null). */
export async function videoContentFor(
  ctx: AppContext,
  relay: RelayState,
  taskId: string,
  userId: number | null,
  range: string | null = null,
): Promise<VideoContent> {
  return fetchVideoContent(ctx, relay, await ownVideo(ctx, userId, taskId), range);
}
