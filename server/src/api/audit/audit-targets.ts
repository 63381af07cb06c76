import type { Db } from '../../db/index.js';
import { isOptionKey, optionRegistry, type OptionDefinition } from '../../options/registry.js';

/** What a management request changes: the entity's kind and id, and how to read its state. */
export interface AuditTarget {
  entity: string;
  entityId: string;
  /** Reads the entity's current state, or null when it has no row to read (or none yet). */
  snapshot: ((db: Db) => Promise<Record<string, unknown> | null>) | null;
  /** Field names of the snapshot that hold a secret although their name does not say so. */
  secretFields: string[];
}

/** Options that are the groups' settings, and the prices', named so in the trail (they are options). */
const groupOptions = new Set(['GroupRatio', 'UserUsableGroups', 'GroupGroupRatio', 'AutoGroups', 'TopupGroupRatio']);
const priceOptions = new Set([
  'ModelPrice',
  'ModelRatio',
  'CacheRatio',
  'CacheCreationRatio',
  'CompletionRatio',
  'UnsetModelRatio',
  'Price',
  'StripeUnitPrice',
]);

export function optionEntity(key: string): string {
  if (groupOptions.has(key)) return 'group';
  if (priceOptions.has(key)) return 'price';
  return 'option';
}

const userColumns = [
  'id',
  'username',
  'display_name',
  'role',
  'status',
  'email',
  'group',
  'quota',
  'remark',
  'password',
  'access_token',
  'deleted_at',
] as const;

async function userSnapshot(db: Db, id: number) {
  const user = await db.selectFrom('users').select(userColumns).where('id', '=', id).executeTakeFirst();
  if (!user) return null;
  const totp = await db.selectFrom('two_fas').select('id').where('user_id', '=', id).executeTakeFirst();
  const passkeys = await db
    .selectFrom('passkey_credentials')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('user_id', '=', id)
    .executeTakeFirst();
  return { ...user, totp_enabled: totp !== undefined, passkeys: Number(passkeys?.n ?? 0) };
}

const rowOf = (table: 'channels' | 'tokens' | 'redemptions' | 'subscription_plans', id: number) => async (db: Db) =>
  ((await db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst()) as Record<string, unknown> | undefined) ?? null;

/** A positive safe integer id from a route parameter or a body field, else null. */
function idFrom(value: unknown): number | null {
  const id = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 && id < 2 ** 31 ? id : null;
}

const fieldOf = (source: unknown, name: string): unknown =>
  source !== null && typeof source === 'object' && !Array.isArray(source) ? (source as Record<string, unknown>)[name] : undefined;

/**
 * The target of a mutating /api route by its pattern: channels, users, tokens, redemptions, options
 * (as group, price or option) and subscription plans have a row to read before and after; the rest
 * are named by the route's first segment and recorded from the request alone. `actorId` is the
 * target of the self-service routes (an admin's own profile, second factor, passkeys).
 */
export function auditTargetOf({
  route,
  params,
  body,
  actorId,
}: {
  route: string;
  params: unknown;
  body: unknown;
  actorId: number;
}): AuditTarget {
  const id = idFrom(fieldOf(params, 'id')) ?? idFrom(fieldOf(body, 'id'));
  const segment = route.replace(/^\/api\//, '').split('/')[0] ?? '';
  const target = (entity: string, snapshot: AuditTarget['snapshot'] = null, secretFields: string[] = []): AuditTarget => ({
    entity,
    entityId: id === null ? '' : String(id),
    snapshot,
    secretFields,
  });
  if (route === '/api/option/') {
    const key = fieldOf(body, 'key');
    if (typeof key !== 'string' || key.length > 191) return target('option');
    // Runs before the route validates the body: only a registered key is looked up (a NUL byte in
    // an unknown one would reach PostgreSQL); the route refuses the others and the attempt is recorded.
    if (!isOptionKey(key)) return { entity: optionEntity(key), entityId: key, snapshot: null, secretFields: [] };
    const isSecret = (optionRegistry[key] as OptionDefinition).secret === true;
    const snapshot = async (db: Db) => {
      const row = await db.selectFrom('options').select(['key', 'value']).where('key', '=', key).executeTakeFirst();
      // `name`, not `key`: a field named key is a secret to the redaction.
      return row ? { name: row.key, value: row.value } : null;
    };
    return { entity: optionEntity(key), entityId: key, snapshot, secretFields: isSecret ? ['value'] : [] };
  }
  if (route === '/api/option/rest_model_ratio') return target('price');
  if (segment === 'channel') return target('channel', id === null || route.endsWith('/batch') ? null : rowOf('channels', id));
  if (segment === 'token') return target('token', id === null ? null : rowOf('tokens', id));
  if (segment === 'redemption') return target('redemption', id === null ? null : rowOf('redemptions', id));
  if (route.startsWith('/api/subscription/admin/plan'))
    return target('subscription_plan', id === null ? null : rowOf('subscription_plans', id));
  if (segment === 'user') {
    // Another user: the editor, manage, their second factor or passkeys; else the caller's own account.
    const isOtherUser = route === '/api/user/' || route === '/api/user/manage' || route.startsWith('/api/user/:id');
    const userId = isOtherUser ? id : actorId;
    return {
      entity: 'user',
      entityId: userId === null ? '' : String(userId),
      snapshot: userId === null ? null : (db) => userSnapshot(db, userId),
      secretFields: [],
    };
  }
  return target(segment || 'api');
}

/**
 * The action: the manage action of POST /api/user/manage, else the route's last fixed segment
 * after the entity (batch, tag, copy, 2fa, ...), else what the method does.
 */
export function auditActionOf(method: string, route: string, body: unknown): string {
  const manage = fieldOf(body, 'action');
  if (route === '/api/user/manage' && typeof manage === 'string') return `manage:${manage.slice(0, 32)}`;
  const fixed = route
    .replace(/^\/api\/[^/]+\/?/, '')
    .split('/')
    .filter((part) => part !== '' && !part.startsWith(':'));
  if (fixed.length > 0) return fixed.join('.').slice(0, 64);
  return ({ POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' } as Record<string, string>)[method] ?? method.toLowerCase();
}
