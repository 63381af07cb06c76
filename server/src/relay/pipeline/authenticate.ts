import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { Role } from '@modelgate/shared';
import { mustEnrolSecondFactor, secondFactorRequiredMessage } from '../../lib/second-factors.js';
import { readSession, sessionCookieName } from '../../lib/session.js';
import type { AppContext } from '../../context.js';
import { RelayError, relayErrors, shownName } from '../errors.js';
import type { RelayState } from '../state.js';
import type { CachedToken, CachedUser } from './access-cache.js';
import { isIpAllowed } from './ip-allow.js';
import { autoGroupName, userAutoGroups } from '../routing/auto-group.js';

export const TokenStatus = { enabled: 1, disabled: 2, expired: 3, exhausted: 4 } as const;
const adminRole = 10;

/** Who is calling the relay, resolved from memory. */
export interface RelayCaller {
  user: CachedUser;
  /** null for the session-authenticated playground. */
  token: CachedToken | null;
  /**
   * Group used for channel selection and the group ratio. For an `auto` token it is 'auto' until
   * routing/auto-group.ts resolveAutoGroup picks the group for the call's model.
   */
  group: string;
  /** For an `auto` token: its auto groups in AutoGroups order (null for any other caller). */
  autoGroups: string[] | null;
  pinnedChannelId: number | null;
}

/** `Bearer sk-<key>` or `Bearer sk-<key>-<channelId>`; the stored key has no `sk-` prefix. */
export function parseApiKey(header: string | undefined): { key: string; channelId: number | null } | null {
  if (!header) return null;
  let value = header.trim();
  const bearer = /^bearer\s+/i.exec(value);
  if (bearer) value = value.slice(bearer[0].length);
  if (value.startsWith('sk-')) value = value.slice(3);
  if (!value) return null;
  // key[-channelId[-...]] without splitting the whole string.
  const dash = value.indexOf('-');
  const key = dash < 0 ? value : value.slice(0, dash);
  if (!key) return null;
  let channelId: number | null = null;
  if (dash >= 0) {
    const end = value.indexOf('-', dash + 1);
    const part = end < 0 ? value.slice(dash + 1) : value.slice(dash + 1, end);
    if (/^\d+$/.test(part)) channelId = Number(part);
  }
  return { key, channelId };
}

/** Groups a user may choose: the UserUsableGroups option plus the user's own group. */
export function usableGroups(ctx: AppContext, user: CachedUser): Set<string> {
  const groups = new Set(Object.keys(ctx.options.json<Record<string, string>>('UserUsableGroups')));
  groups.add(user.group);
  return groups;
}

function checkUser(user: CachedUser | null): CachedUser {
  if (!user || user.isDeleted) throw relayErrors.invalidToken('令牌所属用户不存在');
  if (user.status !== 1) throw relayErrors.forbidden('user_disabled', '用户已被封禁');
  return user;
}

/**
 * Token auth from memory (docs/relay.md lists every rejection and its status). The key is
 * `Authorization: Bearer`, else `x-api-key` (Anthropic clients), else `apiKey` when the route
 * reads it elsewhere (Gemini's `?key=` / `x-goog-api-key`).
 */
export async function authenticateToken(
  ctx: AppContext,
  relay: RelayState,
  request: { headers: IncomingHttpHeaders; ip: string },
  apiKey?: string,
): Promise<RelayCaller> {
  const parsed = parseApiKey(request.headers.authorization ?? (request.headers['x-api-key'] as string | undefined) ?? apiKey);
  if (!parsed) throw relayErrors.invalidToken('未提供令牌');
  const found = relay.access.findToken(parsed.key);
  const token = found instanceof Promise ? await found : found;
  if (!token || token.isDeleted) throw relayErrors.invalidToken('无效的令牌');
  if (token.status === TokenStatus.expired) throw relayErrors.invalidToken('该令牌已过期');
  if (token.status === TokenStatus.exhausted) throw relayErrors.invalidToken('该令牌额度已用尽');
  if (token.status !== TokenStatus.enabled) throw relayErrors.invalidToken('该令牌状态不可用');
  if (token.expiredTime !== -1 && token.expiredTime * 1000 < Date.now()) {
    relay.access.setTokenStatus(token, TokenStatus.expired);
    relay.usage.setTokenStatus(token.id, TokenStatus.expired);
    throw relayErrors.invalidToken('该令牌已过期');
  }
  if (!token.isUnlimited && token.remainQuota - token.pendingQuota - token.held <= 0) {
    if (token.held === 0) {
      relay.access.setTokenStatus(token, TokenStatus.exhausted);
      relay.usage.setTokenStatus(token.id, TokenStatus.exhausted);
    }
    throw relayErrors.invalidToken('该令牌额度已用尽');
  }
  if (!isIpAllowed(token.allowIps, request.ip))
    throw relayErrors.forbidden('ip_not_allowed', `您的 IP ${request.ip} 不在令牌允许的 IP 列表中`);
  const foundUser = relay.access.findUser(token.userId);
  const user = checkUser(foundUser instanceof Promise ? await foundUser : foundUser);
  let group = user.group;
  let autoGroups: string[] | null = null;
  if (token.group) {
    const usable = usableGroups(ctx, user);
    if (!usable.has(token.group)) throw relayErrors.forbidden('group_not_allowed', `无权访问 ${token.group} 分组`);
    group = token.group;
    if (group === autoGroupName) autoGroups = userAutoGroups(ctx, user, usable);
  }
  if (parsed.channelId !== null && user.role < adminRole) throw relayErrors.forbidden('channel_pin_not_allowed', '普通用户不支持指定渠道');
  return { user, token, group, autoGroups, pinnedChannelId: parsed.channelId };
}

/** The playground: the session cookie plus a matching New-Api-User header (the group comes from the body: withChosenGroup). */
export async function authenticateSession(ctx: AppContext, relay: RelayState, request: FastifyRequest): Promise<RelayCaller> {
  const session = readSession(ctx.config.sessionSecret, request.cookies?.[sessionCookieName]);
  if (session === null) throw new RelayError(401, 'unauthenticated', '未登录或登录已过期，请重新登录');
  const header = request.headers['new-api-user'];
  if (header === undefined || String(header) !== String(session.userId))
    throw new RelayError(401, 'unauthenticated', '无权进行此操作，New-Api-User 与登录用户不匹配');
  const found = relay.access.findUser(session.userId);
  const cached = found instanceof Promise ? await found : found;
  // A revoked session (the version moved on) is signed out here as on the management API.
  if (cached && cached.sessionVersion !== session.version) throw new RelayError(401, 'unauthenticated', '未登录或登录已过期，请重新登录');
  const user = checkUser(cached);
  // As on the management API (api/auth/guards.ts): an admin who must enrol a second factor may not use the console's calls yet.
  if (await mustEnrolSecondFactor(ctx, user, user.role >= Role.admin))
    throw relayErrors.forbidden('second_factor_required', secondFactorRequiredMessage);
  return { user, token: null, group: user.group, autoGroups: null, pinnedChannelId: null };
}

/** The playground's caller with the group its body chose, when the user may use that group. */
export function withChosenGroup(ctx: AppContext, caller: RelayCaller, bodyGroup: unknown): RelayCaller {
  if (typeof bodyGroup !== 'string' || !bodyGroup) return caller;
  const usable = usableGroups(ctx, caller.user);
  if (!usable.has(bodyGroup)) throw relayErrors.forbidden('group_not_allowed', `无权访问 ${shownName(bodyGroup)} 分组`);
  return { ...caller, group: bodyGroup, autoGroups: bodyGroup === autoGroupName ? userAutoGroups(ctx, caller.user, usable) : null };
}

export function checkModelAllowed(caller: RelayCaller, model: string): void {
  const limits = caller.token?.modelLimits;
  if (limits && !limits.has(model)) throw relayErrors.forbidden('model_not_allowed', `该令牌无权访问模型 ${shownName(model)}`);
}
