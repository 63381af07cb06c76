import { z } from 'zod';
import { forbidden, invalidInput } from '../../../lib/errors.js';
import type { AppContext } from '../../../context.js';
import { fetchJson } from '../../../lib/fetch-json.js';
import type { ExchangeContext, ProviderAccount } from './types.js';

const tokenSchema = z.object({ access_token: z.string().max(4096).nullish() });
const userSchema = z.object({
  id: z.number().int().positive(),
  username: z.string().max(191).nullish(),
  name: z.string().nullish(),
  active: z.boolean().nullish(),
  silenced: z.boolean().nullish(),
  trust_level: z.number().int().nullish(),
});

/**
 * Linux DO Connect: the code is exchanged at {LINUX_DO_BASE_URL}/oauth2/token (client id and secret
 * as HTTP Basic), the user read from {LINUX_DO_BASE_URL}/api/user; accounts below
 * LinuxDOMinimumTrustLevel, inactive or silenced are refused.
 */
export async function fetchLinuxDoAccount(ctx: AppContext, code: string, { log, redirectUri }: ExchangeContext): Promise<ProviderAccount> {
  const base = ctx.config.oauthEndpoints.linuxDo;
  const basic = Buffer.from(`${ctx.options.get('LinuxDOClientId')}:${ctx.options.get('LinuxDOClientSecret')}`).toString('base64');
  const token = await fetchJson(log, 'Linux DO', `${base}/oauth2/token`, {
    method: 'POST',
    headers: { accept: 'application/json', authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }).toString(),
  });
  const accessToken = tokenSchema.safeParse(token.body).data?.access_token;
  if (token.status !== 200 || !accessToken) {
    log.warn({ provider: 'linuxdo', status: token.status }, 'Linux DO refused the code');
    throw invalidInput('Linux DO 授权码无效或已过期，请重新登录');
  }
  const user = await fetchJson(log, 'Linux DO', `${base}/api/user`, {
    headers: { accept: 'application/json', authorization: `Bearer ${accessToken}` },
  });
  const parsed = userSchema.safeParse(user.body).data;
  if (user.status !== 200 || !parsed) throw invalidInput('无法读取 Linux DO 用户信息，请稍后再试');
  if (parsed.active === false || parsed.silenced === true) throw forbidden('该 Linux DO 账户未激活或已被禁言');
  if ((parsed.trust_level ?? 0) < ctx.options.number('LinuxDOMinimumTrustLevel')) {
    throw forbidden('Linux DO 信任等级未达到管理员设置的最低信任等级');
  }
  const username = parsed.username ?? '';
  return { provider: 'linuxdo', externalId: String(parsed.id), username, displayName: parsed.name || username, email: '' };
}
