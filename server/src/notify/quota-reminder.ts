import type { AppContext } from '../context.js';
import { serverAddressOf } from '../lib/server-address.js';
import { escapeHtml, sendMail } from '../mail/mailer.js';
import type { CachedUser } from '../relay/pipeline/access-cache.js';
import { fetchGuardOf } from '../lib/outbound-guard.js';
import { deliverWebhook, type WebhookLog } from './webhook.js';

/** At most one quota warning per user per this many seconds (spec: once per 2 hours), across instances. */
export const reminderIntervalSeconds = 2 * 3600;

interface ReminderLog extends WebhookLog {
  info(object: object, message: string): void;
}

interface UserSetting {
  notify_type?: unknown;
  webhook_url?: unknown;
  webhook_secret?: unknown;
  notification_email?: unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/**
 * Quota warnings: after a usage flush has written a user's spending, a user whose remaining quota is
 * below their quota_warning_threshold (QuotaRemindThreshold when unset) is told once per 2 hours, by
 * mail or by webhook as their notification setting says. Everything runs after the flush, off the
 * request path; the 2-hour claim is atomic in the cache, so several instances send one warning.
 */
export class QuotaReminder {
  private readonly queue = new Set<number>();
  private isRunning = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: ReminderLog,
  ) {}

  /** Called with the users a flush wrote; cheap: compares numbers held in memory. */
  check(users: CachedUser[]): void {
    const fallback = this.ctx.options.number('QuotaRemindThreshold');
    for (const user of users) {
      const threshold = user.warningThreshold > 0 ? user.warningThreshold : fallback;
      if (threshold > 0 && user.quota - user.pendingQuota < threshold) this.queue.add(user.id);
    }
    if (this.queue.size > 0 && !this.isRunning) void this.drain();
  }

  private async drain(): Promise<void> {
    this.isRunning = true;
    try {
      while (this.queue.size > 0) {
        const [id] = this.queue;
        this.queue.delete(id!);
        await this.remind(id!).catch((error: unknown) =>
          this.log.error({ err: error instanceof Error ? error.message : String(error), userId: id }, 'quota warning failed'),
        );
      }
    } finally {
      this.isRunning = false;
    }
  }

  private async remind(userId: number): Promise<void> {
    if (!(await this.ctx.cache.take(`notify:quota:${userId}`, 1, reminderIntervalSeconds))) return;
    const user = await this.ctx.storage.db
      .selectFrom('users')
      .select(['id', 'username', 'email', 'quota', 'setting', 'deleted_at'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!user || user.deleted_at !== null) return;
    let setting: UserSetting = {};
    try {
      setting = user.setting ? (JSON.parse(user.setting) as UserSetting) : {};
    } catch {
      // an unreadable setting means the defaults: mail to the account's address
    }
    const quota = Number(user.quota);
    const amount = this.formatQuota(quota);
    const title = '您的额度即将用尽';
    const content = `您的额度即将用尽，当前剩余额度为 ${amount}，为了不影响您的使用，请及时充值。`;
    if (text(setting.notify_type) === 'webhook') {
      const delivered = await deliverWebhook(
        { url: text(setting.webhook_url), secret: text(setting.webhook_secret) },
        {
          type: 'quota_exceed',
          title,
          content,
          values: [amount],
          user_id: user.id,
          remaining_quota: quota,
          timestamp: Math.floor(Date.now() / 1000),
        },
        this.ctx.config.extraCaFile,
        fetchGuardOf(this.ctx.options),
        this.log,
      );
      if (delivered) this.log.info({ userId }, 'quota warning sent by webhook');
      return;
    }
    const to = text(setting.notification_email) || text(user.email);
    if (!to) {
      this.log.info({ userId }, 'quota warning not sent: the user has no mail address');
      return;
    }
    // The top-up link only with a ServerAddress (a mail link is never built from a request).
    const address = serverAddressOf(this.ctx.options);
    const topUp = address === null ? null : `${address}/topup`;
    // sendMail logs its own failures; the claim stays, so a broken mail server is not retried every second.
    await sendMail(this.ctx, this.log as never, {
      to,
      subject: title,
      html: `<p>${escapeHtml(content)}</p>${topUp ? `<p><a href="${escapeHtml(topUp)}">${escapeHtml(topUp)}</a></p>` : ''}`,
    });
    this.log.info({ userId }, 'quota warning sent by mail');
  }

  private formatQuota(quota: number): string {
    const perUnit = this.ctx.options.number('QuotaPerUnit');
    return this.ctx.options.bool('DisplayInCurrencyEnabled') && perUnit > 0 ? `$${(quota / perUnit).toFixed(2)}` : String(quota);
  }
}
