import { z } from 'zod';
import type { OptionStore } from '../options/store.js';
import { forbidden, invalidInput } from '../lib/errors.js';

export const emailMessages = {
  required: '请输入邮箱！',
  invalid: '无效的邮箱地址',
  domainNotAllowed: '管理员启用了邮箱域名白名单，您的邮箱地址的域名不在白名单中',
  aliasNotAllowed: '管理员已启用邮箱地址别名限制，您的邮箱地址由于包含特殊符号而被拒绝。',
  taken: '邮箱地址已被占用',
} as const;

const emailSchema = z.string().max(100).email();

/** The address as stored and compared: trimmed, lower-case; a 400 when it is not an address. */
export function normalizeEmail(raw: unknown): string {
  const email = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (!email) throw invalidInput(emailMessages.required);
  if (!emailSchema.safeParse(email).success) throw invalidInput(emailMessages.invalid);
  return email;
}

/** EmailDomainRestrictionEnabled (domain in EmailDomainWhitelist) and EmailAliasRestrictionEnabled (no `+`). */
export function assertEmailAllowed(options: OptionStore, email: string): void {
  const [local = '', domain = ''] = email.split('@');
  if (options.bool('EmailDomainRestrictionEnabled')) {
    const allowed = options
      .get('EmailDomainWhitelist')
      .split(',')
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean);
    if (!allowed.includes(domain)) throw forbidden(emailMessages.domainNotAllowed);
  }
  if (options.bool('EmailAliasRestrictionEnabled') && local.includes('+')) throw forbidden(emailMessages.aliasNotAllowed);
}
