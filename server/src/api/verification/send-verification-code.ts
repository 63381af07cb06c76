import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../lib/errors.js';
import { translate, type Language } from '../../lib/i18n/index.js';
import { assertEmailAllowed, emailMessages, normalizeEmail } from '../../mail/email-rules.js';
import { escapeHtml, sendMail } from '../../mail/mailer.js';
import { codeLifetimeSeconds, type OneTimeCodes } from '../../mail/one-time-codes.js';
import type { AppContext } from '../../context.js';

/**
 * GET /api/verification: mails a six-digit code for registration or binding the address. The address
 * must pass the domain and alias restrictions and not belong to anyone yet; one mail per address per
 * 30 seconds. The mail is in the language of the person who asked for it.
 */
export async function sendVerificationCode(
  ctx: AppContext,
  codes: OneTimeCodes,
  log: FastifyBaseLogger,
  rawEmail: unknown,
  language: Language,
): Promise<void> {
  const email = normalizeEmail(rawEmail);
  assertEmailAllowed(ctx.options, email);
  const taken = await ctx.storage.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  if (taken) throw new AppError('conflict', emailMessages.taken);
  await codes.claimSendSlot('verify', email);
  const code = await codes.issue('verify', email);
  const system = escapeHtml(ctx.options.get('SystemName') || 'ModelGate');
  await sendMail(ctx, log, {
    to: email,
    subject: translate(`${ctx.options.get('SystemName') || 'ModelGate'}邮箱验证邮件`, language),
    html: translate(
      `<p>您好，你正在进行${system}邮箱验证。</p><p>您的验证码为: <strong>${code}</strong></p><p>验证码 ${codeLifetimeSeconds / 60} 分钟内有效，如果不是本人操作，请忽略。</p>`,
      language,
    ),
  });
}
