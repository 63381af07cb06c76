import { randomInt } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { requestLanguage } from '../../lib/i18n/index.js';
import { clientStatus, RelayError, toRelayError, UpstreamError } from '../errors.js';
import { requireObject } from '../jobs/json-body.js';
import { authenticateToken, type RelayCaller } from '../pipeline/authenticate.js';
import { authenticateFirst, callerOf } from '../pipeline/authenticate-first.js';
import { targetOf } from '../upstream/dispatch.js';
import { storableText } from '../ledger/log-rows.js';
import { fetchMjImageSeed, submitMjTask, type MjSubmitAnswer } from '../providers/midjourney/platform.js';
import { TaskRefusal } from '../providers/shared/task-json.js';
import type { RelayState } from '../state.js';
import { mjActionModels, mjSubmitReaders, promptWithMode, type MjSubmit } from '../tasks/mj-requests.js';
import { mjTaskObject, type MjRow } from '../tasks/mj-task-object.js';
import { submitTask } from '../tasks/submit.js';
import { proxyImage } from './mj-image.js';
import { canonicalPath } from '../../lib/relay-paths.js';

/** The speed-mode prefixes in front of `/mj` (none: the channel's default mode). */
const modePrefixes: ReadonlyArray<readonly [string, string | null]> = [
  ['', null],
  ['/mj-fast', 'fast'],
  ['/mj-turbo', 'turbo'],
  ['/mj-relax', 'relax'],
];
const midjourneyTypes = new Set([2, 5]);

/** Midjourney-Proxy's answer codes for the gateway's own refusals: 3 not found, 4 bad request, 9 system error. */
const mjCodeOf = (status: number) => (status === 404 ? 3 : status >= 500 ? 9 : 4);
const mjError = (reply: FastifyReply, error: RelayError) =>
  reply.code(clientStatus(error)).send({ code: mjCodeOf(clientStatus(error)), description: error.message, result: null, properties: {} });

/** A gateway task id in Midjourney-Proxy's style (digits): the time in ms and 6 random digits. */
const newMjId = () => `${Date.now()}${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;

const notFound = () => new RelayError(404, 'task_not_exist', '任务不存在');
const idParam = (request: FastifyRequest) => {
  const id = String((request.params as { id?: string }).id ?? '');
  if (!id || id.length > 191) throw new RelayError(400, 'invalid_request', '任务 ID 无效');
  return id;
};
const listBody = z.object({ ids: z.array(z.string().min(1).max(191)).max(100).default([]) });

/**
 * The Midjourney-Proxy routes under `/mj` and the mode prefixes: submits
 * billed per action (relay/tasks/submit.ts), follow-ups sent to the channel that made the image,
 * fetch and list answered from the database (a user's own tasks only), image-seed asked of the
 * channel, and the image proxy. Answers and errors are in Midjourney-Proxy's shape.
 */
export async function registerMidjourneyRoutes(parent: FastifyInstance, ctx: AppContext, relay: RelayState): Promise<void> {
  await parent.register(async (scope) => {
    // Body and other errors thrown before a handler are answered in Midjourney-Proxy's shape too.
    scope.setErrorHandler((error: FastifyError | Error, request, reply) => {
      if (reply.sent || reply.raw.headersSent) return;
      return mjError(reply, toRelayError(error, request.log, requestLanguage(request)));
    });

    /** Bearer as the chat relay, or `mj-api-secret` when Authorization is empty or `midjourney-proxy`. */
    const caller = async (request: FastifyRequest): Promise<RelayCaller> => {
      const authorization = request.headers.authorization?.trim() ?? '';
      const secret = request.headers['mj-api-secret'];
      const usesSecret = (!authorization || /^(bearer\s+)?midjourney-proxy$/i.test(authorization)) && typeof secret === 'string' && secret;
      const headers = usesSecret ? { ...request.headers, authorization: `Bearer ${secret}` } : request.headers;
      const found = await authenticateToken(ctx, relay, { headers, ip: request.ip });
      if (!ctx.options.bool('DrawingEnabled')) throw new RelayError(403, 'drawing_disabled', '绘图功能未启用');
      return found;
    };
    const ownTask = (userId: number, mjId: string) =>
      ctx.storage.db.selectFrom('midjourneys').selectAll().where('mj_id', '=', mjId).where('user_id', '=', userId).executeTakeFirst();

    // Bodies are read only once the caller is known (authenticate-first.ts).
    const byToken = authenticateFirst(caller);
    const submit = async (
      request: FastifyRequest,
      path: string,
      read: (body: Record<string, unknown>) => MjSubmit,
      mode: string | null,
    ) => {
      const who = callerOf(request);
      const parsed = read(requireObject(request.body));
      let reference: MjRow | null = null;
      if (parsed.refTaskId !== null) {
        reference = (await ownTask(who.user.id, parsed.refTaskId)) ?? null;
        if (!reference) throw notFound();
        if (ctx.options.bool('MjActionCheckSuccessEnabled') && parsed.action !== 'MODAL' && reference.status !== 'SUCCESS') {
          throw new RelayError(
            400,
            'task_status_not_success',
            `任务 ${reference.mj_id} 的状态是 ${reference.status || '未知'}，只能对状态为 SUCCESS 的任务执行操作`,
          );
        }
      }
      // The gateway calls notify hooks itself (with its own task ids); account filters only when allowed.
      const { notifyHook, accountFilter, ...rest } = reference ? parsed.withUpstreamId(reference.upstream_id) : parsed.body;
      const body: Record<string, unknown> = {
        ...rest,
        ...(accountFilter && ctx.options.bool('MjAccountFilterEnabled') ? { accountFilter } : {}),
      };
      if (typeof body.prompt === 'string') body.prompt = promptWithMode(body.prompt, mode, ctx.options.bool('MjModeClearEnabled'));
      const isUpload = parsed.action === 'UPLOAD';
      const { taskId, accepted } = await submitTask<MjSubmitAnswer>(ctx, relay, who, {
        platform: 'Midjourney',
        action: parsed.action,
        model: mjActionModels[parsed.action]!,
        ...(typeof body.prompt === 'string' ? { prompt: body.prompt } : {}),
        ip: request.ip,
        requestPath: canonicalPath(request.url),
        headers: request.headers,
        ...(reference ? { channelId: reference.channel_id } : {}),
        newTaskId: newMjId,
        isGone: () => request.raw.socket.destroyed,
        refusal: (channel) =>
          midjourneyTypes.has(channel.type)
            ? null
            : new UpstreamError(503, `渠道 #${channel.id} 不是 Midjourney 渠道`, 'channel_type_mismatch', ''),
        send: (channel, target, signal) => submitMjTask(channel.adapter!, target, path, body, signal),
        existingTask: async (channel, answer) => {
          if (answer.code !== 21 || typeof answer.result !== 'string') return null;
          const found = await ctx.storage.db
            .selectFrom('midjourneys')
            .select('mj_id')
            .where('channel_id', '=', channel.id)
            .where('upstream_id', '=', answer.result)
            .where('user_id', '=', who.user.id)
            .executeTakeFirst();
          return found?.mj_id ?? null;
        },
        record: async (trx, row, answer, now) => {
          const urls = Array.isArray(answer.result) ? answer.result : [];
          await trx
            .insertInto('midjourneys')
            .values({
              code: answer.code,
              user_id: row.userId,
              token_id: row.tokenId,
              action: parsed.action,
              mj_id: row.taskId,
              upstream_id: Array.isArray(answer.result) ? '' : answer.result,
              prompt: storableText(parsed.prompt, 0),
              prompt_en: '',
              description: storableText(answer.description, 0),
              state: storableText(typeof rest.state === 'string' ? rest.state : '', 0),
              submit_time: now,
              start_time: isUpload ? now : 0,
              finish_time: isUpload ? now : 0,
              image_url: urls[0] ?? '',
              video_url: '',
              // An upload is answered at once (the Discord URLs): it is kept as a finished task.
              status: isUpload ? 'SUCCESS' : 'SUBMITTED',
              progress: isUpload ? '100%' : '0%',
              fail_reason: '',
              channel_id: row.channelId,
              quota: row.quota,
              subscription_parts: row.subscriptionParts,
              buttons: '',
              properties: storableText(JSON.stringify(isUpload ? { ...answer.properties, urls } : answer.properties), 20_000),
              notify_hook: typeof notifyHook === 'string' ? notifyHook : '',
              lease_owner: '',
              lease_until: 0,
            })
            .execute();
        },
      });
      if (isUpload)
        return {
          code: accepted.code,
          description: accepted.description || '上传成功',
          result: accepted.result,
          properties: accepted.properties,
        };
      return { code: accepted.code, description: accepted.description || '提交成功', result: taskId, properties: accepted.properties };
    };

    const answer = async (reply: FastifyReply, work: () => Promise<unknown>) => {
      try {
        return reply.send(await work());
      } catch (error) {
        if (error instanceof TaskRefusal) return reply.code(400).send(error.answer);
        // An upstream failure is logged in full and answered with a generic message (errors.ts).
        if (error instanceof RelayError) return mjError(reply, toRelayError(error, relay.log, requestLanguage(reply.request)));
        throw error;
      }
    };

    const bodyLimit = ctx.config.maxRequestBodyBytes;
    for (const [prefix, mode] of modePrefixes) {
      for (const [path, read] of Object.entries(mjSubmitReaders)) {
        scope.post(`${prefix}/mj/${path}`, { bodyLimit, onRequest: byToken }, (request, reply) =>
          answer(reply, () => submit(request, path, read, mode)),
        );
      }
      scope.get(`${prefix}/mj/task/:id/fetch`, (request, reply) =>
        answer(reply, async () => {
          const who = await caller(request);
          const row = await ownTask(who.user.id, idParam(request));
          if (!row) throw notFound();
          return mjTaskObject(ctx, row);
        }),
      );
      scope.post(`${prefix}/mj/task/list-by-condition`, { onRequest: byToken }, (request, reply) =>
        answer(reply, async () => {
          const who = callerOf(request);
          const parsed = listBody.safeParse(request.body ?? {});
          if (!parsed.success)
            throw new RelayError(
              400,
              'invalid_request',
              parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; '),
            );
          if (parsed.data.ids.length === 0) return [];
          const rows = await ctx.storage.db
            .selectFrom('midjourneys')
            .selectAll()
            .where('user_id', '=', who.user.id)
            .where('mj_id', 'in', parsed.data.ids)
            .orderBy('id')
            .execute();
          return rows.map((row) => mjTaskObject(ctx, row));
        }),
      );
      scope.get(`${prefix}/mj/task/:id/image-seed`, (request, reply) =>
        answer(reply, async () => {
          const who = await caller(request);
          const row = await ownTask(who.user.id, idParam(request));
          if (!row) throw notFound();
          const channel = relay.channels.findById(row.channel_id);
          if (!channel?.adapter || !midjourneyTypes.has(channel.type))
            throw new RelayError(503, 'channel_unavailable', `原任务的渠道 #${row.channel_id} 已不可用`);
          return fetchMjImageSeed(channel.adapter, targetOf(channel, relay.dispatcher), row.upstream_id);
        }),
      );
      scope.get(`${prefix}/mj/image/:id`, (request, reply) => proxyImage(ctx, relay, request, reply));
    }
  });
}
