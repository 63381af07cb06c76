import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { invalidInput } from '../../../lib/errors.js';
import type { AppContext } from '../../../context.js';
import { fetchJson } from '../../../lib/fetch-json.js';
import type { ProviderAccount } from './types.js';

const answerSchema = z.object({ success: z.boolean().nullish(), message: z.string().nullish(), data: z.string().max(191).nullish() });

/**
 * The WeChat server protocol of the new-api family: GET {WeChatServerAddress}/api/wechat/user?code=
 * with the WeChatServerToken as Authorization answers `{success, message, data: openid}`. The server
 * (which runs the official account) issues the codes and expires them after 3 minutes.
 */
export async function fetchWeChatAccount(ctx: AppContext, code: string, log: FastifyBaseLogger): Promise<ProviderAccount> {
  const address = ctx.options.get('WeChatServerAddress').replace(/\/+$/, '');
  if (!address) throw invalidInput('管理员未配置微信服务器地址');
  const url = `${address}/api/wechat/user?code=${encodeURIComponent(code)}`;
  const answer = await fetchJson(log, '微信服务器', url, {
    headers: { accept: 'application/json', authorization: ctx.options.get('WeChatServerToken') },
  });
  const parsed = answerSchema.safeParse(answer.body).data;
  if (answer.status !== 200 || !parsed?.success || !parsed.data) {
    log.warn({ provider: 'wechat', status: answer.status }, 'WeChat server refused the code');
    throw invalidInput('验证码错误或已过期');
  }
  return { provider: 'wechat', externalId: parsed.data, username: '', displayName: '', email: '' };
}
