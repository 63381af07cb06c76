import type { Db } from '../../db/index.js';
import { notFound } from '../../lib/errors.js';

/** Every user column an admin may see: never password nor access_token. */
export const adminUserColumns = [
  'id',
  'username',
  'display_name',
  'role',
  'status',
  'email',
  'github_id',
  'oidc_id',
  'wechat_id',
  'telegram_id',
  'linux_do_id',
  'quota',
  'used_quota',
  'request_count',
  'group',
  'aff_code',
  'aff_count',
  'aff_quota',
  'aff_history_quota',
  'inviter_id',
  'setting',
  'remark',
  'created_time',
  'deleted_at',
] as const;

/** What a user sees of their own row: the admin view without the admin's remark. */
export const selfUserColumns = adminUserColumns.filter((column) => column !== 'remark');

/** Secrets of a user's own settings that an admin's view leaves out. */
const ownerOnlySettingKeys = ['webhook_secret'];

/** A user row as an admin sees it: the owner's webhook secret removed from `setting`. */
export function toAdminView<T extends { setting: string }>(user: T): T {
  if (!user.setting) return user;
  try {
    const setting = JSON.parse(user.setting) as Record<string, unknown>;
    if (!ownerOnlySettingKeys.some((key) => key in setting)) return user;
    for (const key of ownerOnlySettingKeys) delete setting[key];
    return { ...user, setting: JSON.stringify(setting) };
  } catch {
    return { ...user, setting: '' };
  }
}

/** What the console stores locally after login. */
export const sessionUserColumns = ['id', 'username', 'display_name', 'role', 'status', 'group'] as const;

export const userNotFoundMessage = '用户不存在';
export const userDeletedMessage = '该用户已注销，无法操作';

/** The fields an authorization decision needs; throws 404 for an unknown id. */
export async function findManagedUser(db: Db, id: number) {
  const user = await db
    .selectFrom('users')
    .select(['id', 'username', 'role', 'status', 'quota', 'group', 'deleted_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!user) throw notFound(userNotFoundMessage);
  return user;
}

/** Unique-key violations on SQLite, PostgreSQL and MySQL. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505' || code === 'ER_DUP_ENTRY';
}

export const usernameTakenMessage = '用户名已存在，或已注销';
