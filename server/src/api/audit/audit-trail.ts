import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { AppContext } from '../../context.js';
import { nowSeconds } from '../../db/index.js';
import { appendAuditEntry } from '../../audit/chain.js';
import { redact, redactChange } from '../../audit/redact.js';
import type { AuthUser } from '../auth/guards.js';
import { isAdminRole } from '../auth/roles.js';
import { auditActionOf, auditTargetOf, type AuditTarget } from './audit-targets.js';

type Snapshot = Record<string, unknown> | null;

/** A sign-in to record (set by the sign-in routes): the account, and whether it succeeded. */
export interface SignInAttempt {
  user: Pick<AuthUser, 'id' | 'username' | 'role'>;
  action: 'sign_in' | 'sign_in_failed' | 'sign_in_first_step';
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent it, once a guard authenticated them, also when the guard then refused their role. */
    auditActor: AuthUser | null;
    /** The target and its state before the handler ran (mutating requests of admins only). */
    auditBefore: { target: AuditTarget; before: Snapshot } | null;
    auditSignIn: SignInAttempt | null;
  }
}

const mutatingMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** A value in a row is capped: the trail records changes, not uploads. */
const maxJsonChars = 1_000_000;

const isAudited = (request: FastifyRequest): boolean =>
  mutatingMethods.has(request.method) &&
  request.auditActor !== null &&
  isAdminRole(request.auditActor.role) &&
  typeof request.routeOptions.url === 'string';

function jsonText(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = JSON.stringify(value);
  return text.length > maxJsonChars ? JSON.stringify({ truncated: true, length: text.length }) : text;
}

/** The id in a create's answer ({data: {id}}), when the request itself named none. */
function createdIdOf(payload: unknown): number | null {
  if (typeof payload !== 'string' || payload.length > 100_000) return null;
  try {
    const id = (JSON.parse(payload) as { data?: { id?: unknown } } | null)?.data?.id;
    return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : null;
  } catch {
    return null;
  }
}

/** The request itself as "after" when there is no row to read: route params, query and redacted body. */
function requestAfter(request: FastifyRequest, secretFields: string[]): Snapshot {
  const body = redact(request.body, secretFields);
  const rest = redact({ params: request.params, query: request.query });
  const after: Record<string, unknown> = { ...(rest.value as Record<string, unknown>), body: body.value };
  for (const field of body.removed) after[`${field}_changed`] = true;
  return after;
}

const targetOf = (request: FastifyRequest, route: string, actorId: number, params: unknown = request.params) =>
  auditTargetOf({ route, params, body: request.body, actorId });

/** After the route's own preHandlers (its guard): reads the target's state before the change. */
function snapshotBefore(ctx: AppContext): preHandlerAsyncHookHandler {
  return async function readAuditBefore(request: FastifyRequest) {
    if (!isAudited(request)) return;
    const target = targetOf(request, request.routeOptions.url!, request.auditActor!.id);
    request.auditBefore = { target, before: target.snapshot ? await target.snapshot(ctx.storage.db) : null };
  };
}

async function writeEntry(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  const route = request.routeOptions.url ?? request.url.split('?')[0]!;
  const signIn = request.auditSignIn;
  const base = {
    created_at: nowSeconds(),
    ip: request.ip.slice(0, 64),
    method: request.method,
    route: route.slice(0, 191),
    status: reply.statusCode,
  };
  if (signIn) {
    const { id, username, role } = signIn.user;
    await appendAuditEntry(ctx.storage, {
      ...base,
      user_id: id,
      username,
      role,
      entity: 'session',
      entity_id: String(id),
      action: signIn.action,
      before: '',
      after: '',
    });
    return;
  }
  const actor = request.auditActor!;
  let target = request.auditBefore?.target ?? targetOf(request, route, actor.id);
  const before = request.auditBefore?.before ?? null;
  let after: Snapshot = null;
  const isDone = reply.statusCode < 400;
  if (isDone && target.entityId === '' && target.snapshot === null) {
    // A create: its answer names the new row; read it through the same target rules.
    const createdId = createdIdOf(payload);
    if (createdId !== null) {
      const created = targetOf(request, route, actor.id, { id: String(createdId) });
      if (created.snapshot) target = created;
    }
  }
  if (isDone && target.snapshot) after = await target.snapshot(ctx.storage.db);
  let change: { before: Snapshot; after: Snapshot };
  if (target.snapshot && (before || after)) {
    change = isDone
      ? redactChange(before, after, target.secretFields)
      : { before: redactChange(before, null, target.secretFields).before, after: requestAfter(request, target.secretFields) };
  } else {
    change = { before: null, after: requestAfter(request, target.secretFields) };
  }
  await appendAuditEntry(ctx.storage, {
    ...base,
    user_id: actor.id,
    username: actor.username,
    role: actor.role,
    entity: target.entity.slice(0, 64),
    entity_id: target.entityId.slice(0, 191),
    action: auditActionOf(request.method, route, request.body),
    before: jsonText(change.before),
    after: jsonText(change.after),
  });
}

/**
 * The audit trail's one recording point (docs/audit.md): every mutating /api request of an admin or
 * the root, answered with success or refused (4xx after the guard knew who it was), and every
 * recorded sign-in, gets exactly one row, written before the answer leaves (onSend), so a change the
 * client sees has its row. Must be installed before the routes (it adds a preHandler to each).
 * A failed write is logged and the answer still goes: the change itself is already committed.
 */
export function installAuditTrail(api: FastifyInstance, ctx: AppContext): void {
  api.decorateRequest('auditActor', null);
  api.decorateRequest('auditBefore', null);
  api.decorateRequest('auditSignIn', null);
  const readBefore = snapshotBefore(ctx);
  api.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (!methods.some((method) => mutatingMethods.has(method))) return;
    const own = route.preHandler === undefined ? [] : [route.preHandler].flat();
    route.preHandler = [...own, readBefore];
  });
  api.addHook('onSend', async (request, reply, payload) => {
    if (request.auditSignIn === null && !isAudited(request)) return payload;
    try {
      await writeEntry(ctx, request, reply, payload);
    } catch (error) {
      request.log.error({ err: error, route: request.routeOptions.url }, 'audit trail: the entry could not be written');
    }
    return payload;
  });
}
