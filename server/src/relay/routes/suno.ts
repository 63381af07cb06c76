import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { requestLanguage } from '../../lib/i18n/index.js';
import { RelayError, clientStatus, toRelayError } from '../errors.js';
import { authenticateToken, type RelayCaller } from '../pipeline/authenticate.js';
import { authenticateFirst, callerOf } from '../pipeline/authenticate-first.js';
import { storableText } from '../ledger/log-rows.js';
import { submitSunoTask } from '../providers/suno/platform.js';
import type { RelayState } from '../state.js';
import { submitTask } from '../tasks/submit.js';
import { canonicalPath } from '../../lib/relay-paths.js';

const text = (max: number) => z.string().max(max).optional();
/** The Suno-API submit body (`prompt` is required for lyrics). Unknown fields are dropped. */
const submitBody = z.object({
  prompt: text(5000),
  gpt_description_prompt: text(3000),
  mv: text(64),
  title: text(200),
  tags: text(500),
  continue_at: z.number().finite().min(0).max(86_400).optional(),
  continue_clip_id: text(191),
  task_id: text(191),
  make_instrumental: z.boolean().optional(),
});
const fetchBody = z.object({ ids: z.array(z.string().min(1).max(191)).max(100).default([]), action: text(40) });
const actions = { music: 'MUSIC', lyrics: 'LYRICS' } as const;

type Row = {
  task_id: string;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: string;
  data: string;
};

/** A task as Suno-API clients read it (`data` parsed back from its stored JSON). */
function sunoTaskOf(row: Row) {
  let data: unknown = null;
  try {
    data = row.data ? JSON.parse(row.data) : null;
  } catch {
    data = null;
  }
  return {
    task_id: row.task_id,
    action: row.action,
    status: row.status,
    fail_reason: row.fail_reason,
    submit_time: Number(row.submit_time),
    start_time: Number(row.start_time),
    finish_time: Number(row.finish_time),
    progress: row.progress,
    data,
  };
}

/** An error in Suno-API's shape, in the caller's language. */
const sunoError = (reply: FastifyReply, error: RelayError) =>
  reply.code(clientStatus(error)).send({ code: 'error', message: error.inLanguage(requestLanguage(reply.request)).message, data: null });

/** Suno routes answer in Suno-API's shape: `{code:"success", message, data}` or `{code:"error", message, data:null}`. */
async function answer(reply: FastifyReply, work: () => Promise<unknown>): Promise<FastifyReply> {
  try {
    return reply.send({ code: 'success', message: '', data: await work() });
  } catch (error) {
    if (!(error instanceof RelayError)) throw error;
    return sunoError(reply, error);
  }
}

const badRequest = (issues: z.core.$ZodIssue[]) =>
  new RelayError(400, 'invalid_request', issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; '));

/** POST /suno/submit/{music|lyrics}, POST /suno/fetch, GET /suno/fetch/{id} (token auth, as the chat relay). */
export async function registerSunoRoutes(parent: FastifyInstance, ctx: AppContext, relay: RelayState): Promise<void> {
  await parent.register(async (scope) => registerIn(scope, ctx, relay));
}

function registerIn(scope: FastifyInstance, ctx: AppContext, relay: RelayState): void {
  // Errors thrown before a handler (the caller refused, a body refused) in Suno-API's shape too.
  scope.setErrorHandler((error: FastifyError | Error, request, reply) => {
    if (reply.sent || reply.raw.headersSent) return;
    return sunoError(reply, toRelayError(error, request.log, requestLanguage(request)));
  });
  const caller = async (request: Parameters<typeof authenticateToken>[2]): Promise<RelayCaller> => {
    const found = await authenticateToken(ctx, relay, request);
    if (!ctx.options.bool('TaskEnabled')) throw new RelayError(403, 'task_disabled', '任务功能未启用');
    return found;
  };
  // Bodies are read only once the caller is known (authenticate-first.ts).
  const byToken = authenticateFirst(caller);
  scope.post('/suno/submit/:action', { onRequest: byToken }, async (request, reply) =>
    answer(reply, async () => {
      const who = callerOf(request);
      const action = actions[(request.params as { action: string }).action?.toLowerCase() as keyof typeof actions];
      if (!action) throw new RelayError(400, 'invalid_action', '不支持的任务类型（music 或 lyrics）');
      const parsed = submitBody.safeParse(request.body ?? {});
      if (!parsed.success) throw badRequest(parsed.error.issues);
      if (action === 'LYRICS' && !parsed.data.prompt?.trim()) throw new RelayError(400, 'invalid_request', '生成歌词需要 prompt');
      const body = { ...parsed.data, ...(action === 'MUSIC' ? { mv: parsed.data.mv || 'chirp-v3-0' } : {}) };
      const { taskId } = await submitTask(ctx, relay, who, {
        platform: 'suno',
        action,
        model: action === 'MUSIC' ? 'suno_music' : 'suno_lyrics',
        prompt: [body.prompt, body.gpt_description_prompt, body.title, body.tags].filter(Boolean).join('\n'),
        ip: request.ip,
        requestPath: canonicalPath(request.url),
        headers: request.headers,
        isGone: () => reply.raw.destroyed,
        newTaskId: () => `task_${randomUUID().replace(/-/g, '')}`,
        send: (channel, target, signal) => submitSunoTask(channel.adapter!, target, action, body, signal),
        record: async (trx, row, upstreamId, now) => {
          await trx
            .insertInto('tasks')
            .values({
              created_at: now,
              updated_at: now,
              task_id: row.taskId,
              upstream_id: upstreamId,
              platform: 'suno',
              user_id: row.userId,
              token_id: row.tokenId,
              channel_id: row.channelId,
              quota: row.quota,
              subscription_parts: row.subscriptionParts,
              action,
              status: 'SUBMITTED',
              fail_reason: '',
              submit_time: now,
              start_time: 0,
              finish_time: 0,
              progress: '0%',
              properties: storableText(JSON.stringify({ prompt: body.prompt ?? '' }), 10_000),
              data: '',
              lease_owner: '',
              lease_until: 0,
            })
            .execute();
        },
      });
      return taskId;
    }),
  );
  const ownTasks = (userId: number, ids: string[]) =>
    ctx.storage.db
      .selectFrom('tasks')
      .select(['task_id', 'action', 'status', 'fail_reason', 'submit_time', 'start_time', 'finish_time', 'progress', 'data'])
      .where('user_id', '=', userId)
      .where('platform', '=', 'suno')
      .where('task_id', 'in', ids)
      .execute();
  scope.post('/suno/fetch', { onRequest: byToken }, async (request, reply) =>
    answer(reply, async () => {
      const who = callerOf(request);
      const parsed = fetchBody.safeParse(request.body ?? {});
      if (!parsed.success) throw badRequest(parsed.error.issues);
      if (parsed.data.ids.length === 0) return [];
      return (await ownTasks(who.user.id, parsed.data.ids)).map(sunoTaskOf);
    }),
  );
  scope.get('/suno/fetch/:id', async (request, reply) =>
    answer(reply, async () => {
      const who = await caller(request);
      const id = String((request.params as { id: string }).id ?? '');
      if (!id || id.length > 191) throw new RelayError(400, 'invalid_request', '任务 ID 无效');
      const [task] = await ownTasks(who.user.id, [id]);
      // Another user's task is answered as unknown.
      if (!task) throw new RelayError(404, 'task_not_exist', '任务不存在');
      return sunoTaskOf(task);
    }),
  );
}
