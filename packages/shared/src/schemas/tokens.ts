import { z } from 'zod';
import { idField } from './fields.js';

export const tokenNameMaxLength = 50;
export const tokenKeyLength = 48;
/** The prefix clients put before a stored key (sk-<48 chars>); keys are stored without it. */
export const tokenKeyPrefix = 'sk-';
export const tokenDefaults = { remainQuota: 500000, expiredTime: -1 } as const;
export const tokenBatchMax = 100;
export const tokenBatchSuffixLength = 6;

export const tokenMessages = {
  nameRequired: '令牌名称不能为空',
  nameTooLong: `令牌名称过长，最多 ${tokenNameMaxLength} 个字符`,
  remainQuotaInvalid: '剩余额度必须是非负整数',
  expiredTimeInvalid: '过期时间格式错误！',
  expiredTimePast: '过期时间不能早于当前时间',
  countInvalid: `批量创建数量必须是 1 到 ${tokenBatchMax} 之间的整数`,
  allowIpsInvalid: (line: string) => `IP 限制格式错误：${line}（每行一个 IP 或 CIDR）`,
  groupUnavailable: (group: string) => `无权使用分组 ${group}`,
  notFound: '令牌不存在',
  cannotEnableExpired: '令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期',
  cannotEnableExhausted: '令牌可用额度已用尽，无法启用，请先修改令牌剩余额度，或者设置为无限额度',
} as const;

const isIPv4 = (text: string): boolean => {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255);
};

const isIPv6 = (input: string): boolean => {
  let text = input;
  if (text.includes('.')) {
    const last = text.lastIndexOf(':');
    if (last < 0 || !isIPv4(text.slice(last + 1))) return false;
    text = `${text.slice(0, last + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':'));
  const groups = [...groupsOf(halves[0] ?? ''), ...groupsOf(halves[1] ?? '')];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return false;
  return halves.length === 2 ? groups.length <= 7 : groups.length === 8;
};

/** One IPv4 or IPv6 address, optionally with a /prefix (CIDR). */
export function isIpOrCidr(text: string): boolean {
  const [address = '', prefix, ...rest] = text.split('/');
  if (rest.length > 0) return false;
  const isV4 = isIPv4(address);
  if (!isV4 && !isIPv6(address)) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (isV4 ? 32 : 128);
}

/** Splits allow_ips into trimmed non-empty lines. */
export const allowIpLines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');

const flag = z.union([z.boolean(), z.literal(0), z.literal(1)], { error: '必须是布尔值' });
const nameList = z.union([z.string(), z.array(z.string({ error: '必须是字符串' }))], {
  error: '必须是字符串数组或逗号分隔的字符串',
});

/** Editable token fields shared by create and update. */
export const tokenFieldsShape = {
  name: z.string({ error: '令牌名称必须是字符串' }).trim().max(tokenNameMaxLength, { error: tokenMessages.nameTooLong }).optional(),
  remain_quota: z
    .number({ error: tokenMessages.remainQuotaInvalid })
    .int({ error: tokenMessages.remainQuotaInvalid })
    .min(0, { error: tokenMessages.remainQuotaInvalid })
    .max(Number.MAX_SAFE_INTEGER)
    .optional(),
  unlimited_quota: flag.optional(),
  expired_time: z
    .number({ error: tokenMessages.expiredTimeInvalid })
    .int({ error: tokenMessages.expiredTimeInvalid })
    .min(-1, { error: tokenMessages.expiredTimeInvalid })
    .max(Number.MAX_SAFE_INTEGER)
    .optional(),
  model_limits_enabled: flag.optional(),
  model_limits: nameList.nullish(),
  allow_ips: z.string({ error: 'allow_ips 必须是字符串' }).max(65535).nullish(),
  group: z.string({ error: '分组必须是字符串' }).trim().max(64).nullish(),
  max_concurrency: z
    .number({ error: 'max_concurrency 必须是 0 到 10000 的整数' })
    .int({ error: 'max_concurrency 必须是 0 到 10000 的整数' })
    .min(0, { error: 'max_concurrency 必须是 0 到 10000 的整数' })
    .max(10_000, { error: 'max_concurrency 必须是 0 到 10000 的整数' })
    .optional(),
  /** An `auto` token: failover goes on into the next auto group (new-api's cross_group_retry). */
  cross_group_retry: flag.optional(),
  /** Seconds identical requests are answered from the response cache (0: the group's setting; docs/caching.md). */
  response_cache_ttl: z
    .number({ error: 'response_cache_ttl 必须是 0 到 2592000 的整数（秒）' })
    .int({ error: 'response_cache_ttl 必须是 0 到 2592000 的整数（秒）' })
    .min(0, { error: 'response_cache_ttl 必须是 0 到 2592000 的整数（秒）' })
    .max(2_592_000, { error: 'response_cache_ttl 必须是 0 到 2592000 的整数（秒）' })
    .optional(),
};

function checkAllowIps(allowIps: string | null | undefined, ctx: z.RefinementCtx): void {
  for (const line of allowIpLines(allowIps ?? '')) {
    if (!isIpOrCidr(line)) {
      ctx.addIssue({ code: 'custom', message: tokenMessages.allowIpsInvalid(line), path: [] });
      return;
    }
  }
}

/** POST /api/token/: `count` above 1 creates a batch; extra tokens get a random suffix on the name. */
export const createTokenSchema = z
  .object({
    ...tokenFieldsShape,
    count: z
      .number({ error: tokenMessages.countInvalid })
      .int({ error: tokenMessages.countInvalid })
      .min(1, { error: tokenMessages.countInvalid })
      .max(tokenBatchMax, { error: tokenMessages.countInvalid })
      .optional(),
  })
  .superRefine((value, ctx) => {
    if (!value.name) ctx.addIssue({ code: 'custom', message: tokenMessages.nameRequired, path: [] });
    if (value.expired_time !== undefined && value.expired_time !== -1) {
      if (value.expired_time === 0) {
        ctx.addIssue({ code: 'custom', message: tokenMessages.expiredTimeInvalid, path: [] });
      } else if (value.expired_time <= Math.floor(Date.now() / 1000)) {
        ctx.addIssue({ code: 'custom', message: tokenMessages.expiredTimePast, path: [] });
      }
    }
    checkAllowIps(value.allow_ips, ctx);
  });

/** PUT /api/token/: id plus fields; with ?status_only=true only id and status. */
export const updateTokenSchema = z
  .object({
    ...tokenFieldsShape,
    id: idField(),
    /** The editor sends the whole row back; only a change to 1 or 2 acts, 3 and 4 are set by the relay. */
    status: z.number({ error: '状态必须是数字' }).int().min(1).max(4).optional(),
  })
  .superRefine((value, ctx) => {
    if (value.name !== undefined && value.name === '') {
      ctx.addIssue({ code: 'custom', message: tokenMessages.nameRequired, path: [] });
    }
    if (value.expired_time === 0) ctx.addIssue({ code: 'custom', message: tokenMessages.expiredTimeInvalid, path: [] });
    checkAllowIps(value.allow_ips, ctx);
  });

export const updateTokenStatusSchema = z.object({
  id: idField(),
  status: z.union([z.literal(1), z.literal(2)], { error: '状态必须是 1（启用）或 2（禁用）' }),
});

export type CreateTokenInput = z.infer<typeof createTokenSchema>;
export type UpdateTokenInput = z.infer<typeof updateTokenSchema>;
/** What a client sends (the schemas' input side). */
export type CreateTokenPayload = z.input<typeof createTokenSchema>;
export type UpdateTokenPayload = z.input<typeof updateTokenSchema>;
