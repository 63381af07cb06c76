import type { FastifyBaseLogger } from 'fastify';
import { randomKey } from '../../lib/crypto.js';
import { invalidInput } from '../../lib/errors.js';
import { requireServerAddress } from '../../lib/server-address.js';
import { translate, type Language } from '../../lib/i18n/index.js';
import { normalizeEmail } from '../../mail/email-rules.js';
import { checkMailer, escapeHtml, sendMail } from '../../mail/mailer.js';
import { codeLifetimeSeconds, type OneTimeCodes } from '../../mail/one-time-codes.js';
import { nextSessionVersion } from '../auth/revoke-sessions.js';
import type { AppContext } from '../../context.js';
import { hashPassword } from '../users/passwords.js';

export const resetMessages = {
  sent: '重置邮件发送成功，请检查邮箱！',
  invalidLink: '重置链接非法或已过期',
  done: '密码已重置并已复制到剪贴板',
  noServerAddress: '管理员未设置服务器地址，无法发送密码重置邮件',
} as const;

const findUserByEmail = (ctx: AppContext, email: string) =>
  ctx.storage.db.selectFrom('users').select('id').where('email', '=', email).where('deleted_at', 'is', null).executeTakeFirst();

/**
 * GET /api/reset_password: mails a one-use link to the address's account. The link's base is
 * ServerAddress only; while it is unset every request is refused (403) before a token is issued or
 * the mail server contacted. An unknown address gets the same answer as a known one (no account
 * enumeration): the mail server is still contacted (signed in to, nothing sent), so a server that is
 * down fails both alike. The mail is in the language of the person who asked for it.
 */
export async function requestPasswordReset(
  ctx: AppContext,
  codes: OneTimeCodes,
  log: FastifyBaseLogger,
  rawEmail: unknown,
  language: Language,
): Promise<void> {
  const base = requireServerAddress(ctx.options, resetMessages.noServerAddress);
  const email = normalizeEmail(rawEmail);
  await codes.claimSendSlot('reset', email);
  const user = await findUserByEmail(ctx, email);
  if (!user) {
    await checkMailer(ctx, log);
    return;
  }
  const token = await codes.issue('reset', email);
  // The console's confirm screen.
  const link = `${base}/user/reset?${new URLSearchParams({ email, token })}`;
  const system = escapeHtml(ctx.options.get('SystemName') || 'ModelGate');
  await sendMail(ctx, log, {
    to: email,
    subject: translate(`${ctx.options.get('SystemName') || 'ModelGate'}密码重置`, language),
    html: translate(
      `<p>您好，你正在进行${system}密码重置。</p><p>点击 <a href="${escapeHtml(link)}">此处</a> 进行密码重置。</p><p>如果链接无法点击，请尝试点击下面的链接或将其复制到浏览器中打开：<br>${escapeHtml(link)}</p><p>重置链接 ${codeLifetimeSeconds / 60} 分钟内有效，如果不是本人操作，请忽略。</p>`,
      language,
    ),
  });
}

/**
 * POST /api/user/reset: the mailed token (once, unexpired) sets a new random password, answered in
 * data for the confirm screen to copy; every session of the user ends.
 */
export async function confirmPasswordReset(ctx: AppContext, codes: OneTimeCodes, rawEmail: unknown, token: unknown): Promise<string> {
  const email = normalizeEmail(rawEmail);
  if (typeof token !== 'string' || !(await codes.consume('reset', email, token))) throw invalidInput(resetMessages.invalidLink);
  const user = await findUserByEmail(ctx, email);
  if (!user) throw invalidInput(resetMessages.invalidLink);
  const password = randomKey(12);
  const hashed = await hashPassword(password);
  await ctx.storage.db
    .updateTable('users')
    .set((eb) => ({ password: hashed, session_version: nextSessionVersion(eb) }))
    .where('id', '=', user.id)
    .execute();
  return password;
}
