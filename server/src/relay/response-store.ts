import type { AppContext } from '../context.js';
import { RelayError } from './errors.js';
import { newId } from './formats/responses/response.js';
import type { Json } from '@modelgate/shared';

/** How long a response can be continued (OpenAI keeps responses 30 days). */
export const storedResponseTtlSeconds = 30 * 24 * 3600;
/** The newest responses kept per user; older ones are dropped as new ones come. */
export const storedResponsesPerUser = 1000;
/** A conversation larger than this (JSON bytes) is not kept: continuing it answers 404. */
export const maxStoredBytes = 8 * 1024 * 1024;
/** How long a continuation waits for a response still being produced (its stream just ended on another instance). */
const pendingWaitMs = 5000;

const responseIdPattern = /^[A-Za-z0-9_-]{1,64}$/;
const notFound = (id: string) =>
  new RelayError(404, 'previous_response_not_found', `Previous response with id '${id}' not found.`, false, 'invalid_request_error');

/** The items of a response the next request continues: messages and function calls (reasoning items carry nothing to resend). */
const keptOutput = (output: unknown): Json[] =>
  Array.isArray(output)
    ? (output as Json[])
        .filter((item) => item && (item.type === 'message' || item.type === 'function_call'))
        .map(({ id: _id, status: _status, ...item }) => item)
    : [];

/** A request's `input` as items (a string is one user message). */
function inputItems(input: unknown): Json[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? (input as Json[]) : [];
}

/**
 * One response the gateway is producing, kept for `previous_response_id`: its row is written
 * (pending) before the upstream is called, completed with the answer's output, and dropped when no
 * converted answer came (an error, or a channel that keeps responses itself answered).
 */
export interface ResponseThread {
  readonly id: string;
  /** The answer the client got (set by the Responses encoder or converter). */
  answer: Json | null;
  /** Completes the row with the answer's output, or drops it when there is none. */
  finish(): Promise<void>;
}

let lastSweepAt = 0;

async function sweep(ctx: AppContext, userId: number, now: number): Promise<void> {
  const db = ctx.storage.db;
  if (now - lastSweepAt >= 60) {
    lastSweepAt = now;
    await db.deleteFrom('stored_responses').where('expires_at', '<', now).execute();
  }
  const { count } = await db
    .selectFrom('stored_responses')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  const excess = Number(count) - storedResponsesPerUser;
  if (excess <= 0) return;
  const oldest = await db
    .selectFrom('stored_responses')
    .select('id')
    .where('user_id', '=', userId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(excess)
    .execute();
  if (oldest.length > 0)
    await db
      .deleteFrom('stored_responses')
      .where(
        'id',
        'in',
        oldest.map((row) => row.id),
      )
      .execute();
}

/** The stored conversation of a caller's response; waits briefly while it is still being produced. */
async function readItems(ctx: AppContext, userId: number, id: string): Promise<Json[] | null> {
  const deadline = Date.now() + pendingWaitMs;
  for (;;) {
    const row = await ctx.storage.db
      .selectFrom('stored_responses')
      .select(['status', 'items', 'expires_at'])
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row || Number(row.expires_at) < Math.floor(Date.now() / 1000)) return null;
    if (Number(row.status) === 1) return JSON.parse(row.items) as Json[];
    if (Date.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Before a Responses request runs: a `previous_response_id` the gateway stored is replaced by the
 * conversation it names (so any channel, native or converted, sees the whole input); one it does
 * not know stays in the body (a channel that keeps responses itself may know it; a converted one
 * answers 404, see `unresolvedPreviousId`). Unless `store` is false, a thread is opened for this
 * response.
 */
export async function openResponseThread(
  ctx: AppContext,
  log: { error(object: object, message: string): void },
  userId: number,
  body: Json,
): Promise<{ body: Json; thread: ResponseThread | null }> {
  const previous = body.previous_response_id;
  if (previous !== undefined && previous !== null && (typeof previous !== 'string' || !responseIdPattern.test(previous))) {
    throw new RelayError(400, 'invalid_request', 'previous_response_id 必须是响应 ID 字符串', false, 'invalid_request_error');
  }
  let items = inputItems(body.input);
  let out = body;
  if (typeof previous === 'string') {
    const earlier = await readItems(ctx, userId, previous);
    if (earlier) {
      items = [...earlier, ...items];
      const { previous_response_id: _resolved, ...rest } = body;
      out = { ...rest, input: items };
    }
  }
  if (body.store === false || (typeof previous === 'string' && out === body)) return { body: out, thread: null };

  const id = newId('resp');
  const now = Math.floor(Date.now() / 1000);
  const db = ctx.storage.db;
  // Awaited before the call goes upstream: the row must exist before its answer can reach the client,
  // or a next turn sent at once to another instance finds no row and answers 404 (seen under load).
  const pending = await db
    .insertInto('stored_responses')
    .values({ id, user_id: userId, status: 0, items: '[]', created_at: now, expires_at: now + storedResponseTtlSeconds })
    .execute()
    .then(
      () => true,
      (error: unknown) => {
        log.error({ err: error }, 'stored response not opened');
        return false;
      },
    );
  const thread: ResponseThread = {
    id,
    answer: null,
    async finish() {
      if (!pending) return;
      const output = thread.answer ? keptOutput(thread.answer.output) : [];
      const text = output.length > 0 ? JSON.stringify([...items, ...output]) : '';
      if (text === '' || Buffer.byteLength(text) > maxStoredBytes) {
        await db.deleteFrom('stored_responses').where('id', '=', id).execute();
        return;
      }
      await db.updateTable('stored_responses').set({ status: 1, items: text }).where('id', '=', id).execute();
      await sweep(ctx, userId, now);
    },
  };
  return { body: out, thread };
}

/** A converted channel cannot answer for a response it never saw: the Responses API's own 404. */
export function unresolvedPreviousId(nativeBody: Json | null): void {
  const previous = nativeBody?.previous_response_id;
  if (typeof previous === 'string') throw notFound(previous);
}
