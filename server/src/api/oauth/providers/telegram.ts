import { createHash, createHmac } from 'node:crypto';
import { invalidInput } from '../../../lib/errors.js';
import { safeEqual } from '../../../lib/crypto.js';
import type { AppContext } from '../../../context.js';
import type { ProviderAccount } from './types.js';

const maxAgeSeconds = 24 * 3600;
export const telegramForgedMessage = 'Telegram 登录信息校验失败';
export const telegramExpiredMessage = 'Telegram 登录信息已过期，请重新登录';

/**
 * Checks the login widget's fields (https://core.telegram.org/widgets/login#checking-authorization):
 * the hash is HMAC-SHA256 of the sorted `key=value` lines, keyed by SHA-256 of the bot token, and
 * auth_date is at most a day old. `lang` is the console's own field, not signed by Telegram.
 */
export function verifyTelegramLogin(ctx: AppContext, fields: Record<string, string>, now = Date.now()): ProviderAccount {
  const botToken = ctx.options.get('TelegramBotToken');
  if (!botToken) throw invalidInput('管理员未配置 Telegram 机器人');
  const { hash = '', lang: _lang, ...signed } = fields;
  const checkString = Object.keys(signed)
    .sort()
    .map((key) => `${key}=${signed[key]}`)
    .join('\n');
  const secret = createHash('sha256').update(botToken).digest();
  const expected = createHmac('sha256', secret).update(checkString).digest('hex');
  if (!safeEqual(hash.toLowerCase(), expected)) throw invalidInput(telegramForgedMessage);
  const authDate = Number(signed.auth_date);
  if (!Number.isSafeInteger(authDate) || now / 1000 - authDate > maxAgeSeconds) throw invalidInput(telegramExpiredMessage);
  const username = signed.username ?? '';
  const displayName = [signed.first_name, signed.last_name].filter(Boolean).join(' ');
  return { provider: 'telegram', externalId: signed.id ?? '', username, displayName: displayName || username, email: '' };
}
