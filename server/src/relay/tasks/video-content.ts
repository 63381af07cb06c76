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
): Promise<{ contentType: string; body: UpstreamResponse['body'] }> {
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
      response = await sendUpstream(channel.adapter, request, { ...timeouts, dispatcher });
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
    if (response.statusCode < 200 || response.statusCode >= 300) {
      await response.body.dump?.().catch(() => undefined);
      throw unavailable();
    }
    return { contentType: videoTypeOf(response.headers['content-type']), body: response.body };
  }
  throw unavailable();
}

/** A video's bytes for the console (relay/facade.ts): the viewer's own video, or any for an admin (`userId` null). */
export async function videoContentFor(
  ctx: AppContext,
  relay: RelayState,
  taskId: string,
  userId: number | null,
): Promise<{ contentType: string; body: UpstreamResponse['body'] }> {
  return fetchVideoContent(ctx, relay, await ownVideo(ctx, userId, taskId));
}
