import { describe, expect, it } from 'vitest';
import { isSecretName, redact, redactChange } from '../../src/audit/redact.js';
import { csvCell } from '../../src/api/audit/export-audit.js';

describe('audit redaction', () => {
  it.each([
    'key',
    'password',
    'original_password',
    'confirmPassword',
    'secret',
    'token',
    'access_token',
    'refresh_token',
    'totp_secret',
    'client_secret',
    'GitHubClientSecret',
    'oidc.client_secret',
    'SMTPToken',
    'smtp_password',
    'StripeWebhookSecret',
    'webhook_secret',
    'TurnstileSecretKey',
    'TelegramBotToken',
    'WeChatServerToken',
    'WorkerValidKey',
    'EpayKey',
    'MetricsToken',
    'backup_codes',
    'code',
    'api_key',
  ])('%s is a secret', (name) => expect(isSecretName(name)).toBe(true));

  it.each([
    'name',
    'token_id',
    'token_name',
    'max_tokens',
    'key_mode',
    'keyword',
    'models',
    'group',
    'quota',
    'remain_quota',
    'status',
    'TurnstileSiteKey',
    'value',
  ])('%s is not a secret', (name) => expect(isSecretName(name)).toBe(false));

  it('removes secrets at any depth and lists the top-level ones', () => {
    const { value, removed } = redact({
      name: 'c',
      key: 'sk-1',
      setting: { api_key: 'x', region: 'eu' },
      list: [{ password: 'p', id: 1 }],
    });
    expect(value).toEqual({ name: 'c', setting: { region: 'eu' }, list: [{ id: 1 }] });
    expect(removed).toEqual(['key']);
    expect(redact({ value: 's3cret' }, ['value'])).toEqual({ value: {}, removed: ['value'] });
  });

  it('a change keeps only whether each secret changed', () => {
    expect(redactChange({ name: 'a', key: 'k1' }, { name: 'b', key: 'k2' })).toEqual({
      before: { name: 'a' },
      after: { name: 'b', key_changed: true },
    });
    expect(redactChange({ name: 'a', key: 'k1' }, { name: 'a', key: 'k1' }).after).toEqual({ name: 'a', key_changed: false });
    expect(redactChange(null, { name: 'new', key: 'k' }).after).toEqual({ name: 'new', key_changed: true });
    expect(redactChange({ name: 'x', key: 'k' }, null)).toEqual({ before: { name: 'x' }, after: null });
    expect(redactChange({ name: 'SMTPToken', value: 'old' }, { name: 'SMTPToken', value: 'new' }, ['value']).after).toEqual({
      name: 'SMTPToken',
      value_changed: true,
    });
  });

  it('CSV cells are quoted when needed and never start a formula', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"\nbye')).toBe('"say ""hi""\nbye"');
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('=A1,"x"')).toBe(`"'=A1,""x"""`);
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(null)).toBe('');
  });
});
