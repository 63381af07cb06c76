import { z } from 'zod';
import { invalidInput } from '../../../lib/errors.js';
import type { AppContext } from '../../../context.js';
import { fetchJson } from '../../../lib/fetch-json.js';
import type { ExchangeContext, ProviderAccount } from './types.js';

const tokenSchema = z.object({ access_token: z.string().max(4096).nullish(), error_description: z.string().nullish() });
const userSchema = z.object({
  id: z.number().int().nullish(),
  login: z.string().max(191).nullish(),
  name: z.string().nullish(),
  email: z.string().nullish(),
});

/**
 * GitHub's web flow: the code is exchanged at {GITHUB_OAUTH_BASE_URL}/login/oauth/access_token,
 * the user read from {GITHUB_API_BASE_URL}/user. The login is the stored id (as the new-api family
 * stores it, so data moves between gateways).
 */
export async function fetchGitHubAccount(ctx: AppContext, code: string, { log }: ExchangeContext): Promise<ProviderAccount> {
  const { githubOAuth, githubApi } = ctx.config.oauthEndpoints;
  const token = await fetchJson(log, 'GitHub', `${githubOAuth}/login/oauth/access_token`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({
      client_id: ctx.options.get('GitHubClientId'),
      client_secret: ctx.options.get('GitHubClientSecret'),
      code,
    }),
  });
  const accessToken = tokenSchema.safeParse(token.body).data?.access_token;
  if (token.status !== 200 || !accessToken) {
    log.warn({ provider: 'github', status: token.status }, 'GitHub refused the code');
    throw invalidInput('GitHub 授权码无效或已过期，请重新登录');
  }
  const user = await fetchJson(log, 'GitHub', `${githubApi}/user`, {
    headers: { accept: 'application/json', authorization: `Bearer ${accessToken}`, 'user-agent': 'ModelGate' },
  });
  const parsed = userSchema.safeParse(user.body).data;
  if (user.status !== 200 || !parsed?.login) throw invalidInput('无法读取 GitHub 用户信息，请稍后再试');
  return {
    provider: 'github',
    externalId: parsed.login,
    username: parsed.login,
    displayName: parsed.name ?? parsed.login,
    email: parsed.email ?? '',
  };
}
