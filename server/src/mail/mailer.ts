import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError } from '../lib/errors.js';
import { extraCa } from '../lib/extra-ca.js';

export interface MailMessage {
  to: string;
  subject: string;
  html: string;
}

export const mailMessages = {
  notConfigured: '管理员未配置 SMTP 服务器，无法发送邮件',
  failed: '邮件发送失败，请稍后重试或联系管理员',
} as const;

/** Timeouts so a mail server that accepts and then says nothing never holds a request. */
const timeouts = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/** A transport from the current SMTP options (they may change at any time, so one per mail). */
function createTransport(ctx: AppContext) {
  const { options } = ctx;
  const host = options.get('SMTPServer').trim();
  if (!host) throw new AppError('unavailable', mailMessages.notConfigured);
  const account = options.get('SMTPAccount').trim();
  const ca = extraCa(ctx.config.extraCaFile);
  return nodemailer.createTransport({
    host,
    port: options.number('SMTPPort'),
    // SMTPSSLEnabled: TLS from the first byte (465); otherwise STARTTLS when the server offers it.
    secure: options.bool('SMTPSSLEnabled'),
    auth: account ? { user: account, pass: options.get('SMTPToken') } : undefined,
    tls: ca ? { ca: [ca] } : undefined,
    ...timeouts,
  });
}

function senderOf(ctx: AppContext): string {
  const from = ctx.options.get('SMTPFrom').trim() || ctx.options.get('SMTPAccount').trim();
  const name = ctx.options.get('SystemName').trim() || 'ModelGate';
  return from ? `"${name.replace(/["\\\r\n]/g, '')}" <${from}>` : name;
}

/**
 * Runs one exchange with the configured SMTP server. A server that is missing, refuses, or is down
 * is a 503 with a clear message for the user and a logged reason for the operator (never the SMTP
 * password: only the error's code and message are logged).
 */
async function withTransport(
  ctx: AppContext,
  log: FastifyBaseLogger,
  failure: string,
  exchange: (transport: ReturnType<typeof createTransport>) => Promise<unknown>,
): Promise<void> {
  const transport = createTransport(ctx);
  try {
    await exchange(transport);
  } catch (error) {
    const { code, message: reason } = error as { code?: string; message?: string };
    log.error({ code, reason, smtpServer: ctx.options.get('SMTPServer') }, failure);
    throw new AppError('unavailable', mailMessages.failed);
  } finally {
    transport.close();
  }
}

/** Sends one mail through the configured SMTP server. */
export function sendMail(ctx: AppContext, log: FastifyBaseLogger, message: MailMessage): Promise<void> {
  return withTransport(ctx, log, 'mail not sent', (transport) =>
    transport.sendMail({ from: senderOf(ctx), to: message.to, subject: message.subject, html: message.html }),
  );
}

/** Connects and signs in to the SMTP server without sending anything (same failures as sendMail). */
export function checkMailer(ctx: AppContext, log: FastifyBaseLogger): Promise<void> {
  return withTransport(ctx, log, 'mail server check failed', (transport) => transport.verify());
}

/** Text placed into a mail's HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
