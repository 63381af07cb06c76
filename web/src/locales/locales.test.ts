import fs from 'node:fs';
import path from 'node:path';
import { accountMessages } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { en, zh } from './index';

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Record<string, string> {
  return Object.fromEntries(
    Object.entries(tree).flatMap(([key, value]) =>
      typeof value === 'string' ? [[`${prefix}${key}`, value]] : Object.entries(flatten(value, `${prefix}${key}.`)),
    ),
  );
}

const zhKeys = flatten(zh as Tree);
const enKeys = flatten(en as Tree);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'test' ? [] : sourceFiles(full);
    return /\.(ts|tsx)$/.test(entry.name) && !/\.test\./.test(entry.name) ? [full] : [];
  });
}

/** Keys used in the source: t('x.y'), titleKey/labelKey-style props and 'settings.*' literals. */
function usedKeys(): string[] {
  const keys = new Set<string>();
  const patterns = [
    /\bt\(\s*['`]([a-zA-Z0-9_.]+)['`]/g,
    /(?:titleKey|labelKey|extraKey|confirmOffKey|jsonErrorKey|textKey)\s*[=:]\s*['"]([a-zA-Z0-9_.]+)['"]/g,
    /later\('([a-zA-Z0-9_.]+)'\)/g,
    /'((?:settings|status)\.[a-zA-Z0-9_.]+)'/g,
  ];
  for (const file of sourceFiles(path.resolve(import.meta.dirname, '..'))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) keys.add(match[1]!);
  }
  for (const tab of ['operation', 'ratelimit', 'models', 'system', 'other']) keys.add(`settings.tab.${tab}`);
  for (const field of ['email', 'github_id', 'oidc_id', 'wechat_id', 'telegram_id', 'linux_do_id']) keys.add(`users.bound.${field}`);
  return [...keys].filter((key) => key.includes('.'));
}

describe('locales', () => {
  it('zh and en hold the same keys', () => {
    expect(Object.keys(enKeys).filter((key) => !(key in zhKeys))).toEqual([]);
    expect(Object.keys(zhKeys).filter((key) => !(key in enKeys))).toEqual([]);
  });

  it('every key used in the source exists in both languages', () => {
    const used = usedKeys();
    expect(used.length).toBeGreaterThan(200);
    expect(used.filter((key) => !(key in zhKeys))).toEqual([]);
    expect(used.filter((key) => !(key in enKeys))).toEqual([]);
  });

  it('no translation is empty', () => {
    expect(
      Object.entries(zhKeys)
        .filter(([, value]) => value.trim() === '')
        .map(([key]) => key),
    ).toEqual([]);
    expect(
      Object.entries(enKeys)
        .filter(([, value]) => value.trim() === '')
        .map(([key]) => key),
    ).toEqual([]);
  });

  it('zh carries the spec messages verbatim, as the shared schemas do', () => {
    expect(zhKeys['auth.loginRequired']).toBe(accountMessages.loginFieldsRequired);
    expect(zhKeys['users.usernamePasswordRequired']).toBe(accountMessages.usernamePasswordRequired);
    expect(zhKeys['auth.passwordTooShort']).toBe(accountMessages.passwordTooShort);
    expect(zhKeys['auth.passwordMismatch']).toBe(accountMessages.passwordMismatch);
    expect(zhKeys['personal.emailRequired']).toBe(accountMessages.emailRequired);
    expect(zhKeys['personal.emailCodeRequired']).toBe(accountMessages.verificationCodeRequired);
    expect(zhKeys['personal.webhookHttps']).toBe(accountMessages.webhookUrlHttpsOnly);
    expect(zhKeys['auth.expired']).toBe('未登录或登录已过期，请重新登录');
    expect(zhKeys['http.tooManyRequests']).toBe('错误：请求次数过多，请稍后再试！');
    expect(zhKeys['http.serverError']).toBe('错误：服务器内部错误，请联系管理员！');
  });
});
