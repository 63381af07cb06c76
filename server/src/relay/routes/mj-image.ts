import type { FastifyReply, FastifyRequest } from 'fastify';
import { request as undiciRequest } from 'undici';
import type { AppContext } from '../../context.js';
import { blockedCause, callbackDispatcher, fetchGuardOf, outboundUrlProblem } from '../../lib/outbound-guard.js';
import type { RelayState } from '../state.js';

const imageTimeoutMs = 60_000;

/** Whether a URL is on the origin of the channel's base URL: the upstream the root configured serves its own images. */
async function isOnChannelOrigin(ctx: AppContext, channelId: number, url: string): Promise<boolean> {
  const channel = await ctx.storage.db.selectFrom('channels').select('base_url').where('id', '=', channelId).executeTakeFirst();
  if (!channel?.base_url) return false;
  try {
    return new URL(channel.base_url).origin === new URL(url).origin;
  } catch {
    return false;
  }
}

/**
 * `GET /mj/image/{id}` (no token, as Midjourney-Proxy's forwarded URLs are opened by browsers): the
 * task's image fetched from its upstream URL and streamed back, with an image content type only.
 * The URL is the upstream's answer, so a hostile upstream could name the gateway's own network (a
 * cloud metadata address) and have anyone read it here: on the channel's own origin it is fetched
 * as the relay fetches, anywhere else only under the SSRF protection (lib/outbound-guard.ts), as
 * new-api guards its image proxy.
 */
export async function proxyImage(ctx: AppContext, relay: RelayState, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const send = (status: number, message: string) => reply.code(status).type('text/plain; charset=utf-8').send(message);
  if (!ctx.options.bool('DrawingEnabled')) return send(403, '绘图功能未启用');
  const id = String((request.params as { id?: string }).id ?? '');
  if (!id || id.length > 191) return send(400, '任务 ID 无效');
  const row = await ctx.storage.db.selectFrom('midjourneys').select(['image_url', 'channel_id']).where('mj_id', '=', id).executeTakeFirst();
  if (!row?.image_url || !/^https?:\/\//i.test(row.image_url)) return send(404, '图片不存在');
  const guard = fetchGuardOf(ctx.options);
  const isTrusted = await isOnChannelOrigin(ctx, row.channel_id, row.image_url);
  const problem = isTrusted ? null : outboundUrlProblem(row.image_url, guard);
  if (problem) {
    relay.log.warn({ mjId: id, reason: problem }, 'midjourney image refused by the SSRF protection');
    return send(502, '图片地址不被允许');
  }
  let upstream: Awaited<ReturnType<typeof undiciRequest>>;
  try {
    upstream = await undiciRequest(row.image_url, {
      method: 'GET',
      dispatcher: isTrusted ? relay.dispatcher : callbackDispatcher(ctx.config.extraCaFile, guard),
      headersTimeout: imageTimeoutMs,
      bodyTimeout: imageTimeoutMs,
    });
  } catch (error) {
    const blocked = blockedCause(error);
    relay.log.warn(
      { mjId: id, err: (error as Error).message },
      blocked ? 'midjourney image refused by the SSRF protection' : 'midjourney image fetch failed',
    );
    return send(502, blocked ? '图片地址不被允许' : '图片获取失败');
  }
  if (upstream.statusCode < 200 || upstream.statusCode >= 300) {
    await upstream.body.dump().catch(() => undefined);
    return send(502, `图片获取失败（上游状态 ${upstream.statusCode}）`);
  }
  const type = String(upstream.headers['content-type'] ?? '');
  const length = upstream.headers['content-length'];
  reply
    .code(200)
    .header('content-type', /^image\/[\w.+-]+$/i.test(type.split(';')[0]!.trim()) ? type : 'application/octet-stream')
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'public, max-age=86400');
  if (typeof length === 'string' && /^\d+$/.test(length)) reply.header('content-length', length);
  return reply.send(upstream.body);
}
