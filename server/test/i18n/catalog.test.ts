import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../src/lib/i18n/catalog/index.js';
import { chineseText, languageOf, translate } from '../../src/lib/i18n/index.js';
import { findCjkLiterals } from '../helpers/cjk-literals.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Where server texts are written: the server, and the shared schemas whose messages it answers with. */
const sourceRoots = [path.resolve(here, '../../src'), path.resolve(here, '../../../packages/shared/src')];

/**
 * Chinese literals that are not messages, kept as they are in every language. Each says why.
 */
const notMessages = new Set([
  // The suffix of a copied channel's name: data the admin renames, not a message.
  '_复制',
  // The separator of the words in `输入包含敏感词：{0}` (the words are the admin's own list).
  '、',
  // The references block an AI Proxy library appends to its answer: model output, as new-api writes it.
  '\n\n参考资料：\n{0}',
  // Midjourney-Proxy's own success descriptions, answered as its clients know them (they read `code`).
  '上传成功',
  '提交成功',
]);

const placeholdersOf = (text: string) => [...text.matchAll(/\{(\d+)\}/g)].map((match) => match[1]).sort();

describe('every server message has an English text', () => {
  const literals = sourceRoots.flatMap((root) =>
    findCjkLiterals(root).map((literal) => ({
      ...literal,
      where: `${path.relative(path.resolve(here, '../../..'), root)}/${literal.where}`,
    })),
  );
  const known = new Set(catalog.map(([zh]) => zh));

  it('finds the literals it checks (the scan works)', () => {
    expect(literals.some((literal) => literal.text === '用户名或密码错误，或用户已被封禁')).toBe(true);
    expect(literals.some((literal) => literal.text === '模型倍率 {0}，补全倍率 {1}，分组倍率 {2}')).toBe(true);
    expect(literals.length).toBeGreaterThan(400);
  });

  it('has a catalog entry for each Chinese string and template literal of the server', () => {
    const missing = literals
      .filter((literal) => !known.has(literal.text) && !notMessages.has(literal.text))
      .map((literal) => `${literal.where}: ${JSON.stringify(literal.text)}`);
    expect(missing, `Add these to server/src/lib/i18n/catalog/ with their English:\n${missing.join('\n')}`).toEqual([]);
  });

  it('has no entry that no source writes any more, and none twice', () => {
    const written = new Set(literals.map((literal) => literal.text));
    expect(catalog.filter(([zh]) => !written.has(zh)).map(([zh]) => zh)).toEqual([]);
    expect(catalog.filter(([zh], i) => catalog.findIndex(([other]) => other === zh) !== i).map(([zh]) => zh)).toEqual([]);
    expect([...notMessages].filter((text) => !written.has(text))).toEqual([]);
  });

  it('gives each entry English with the same {n} parts and no Chinese left', () => {
    const bad = catalog.filter(
      ([zh, en]) => en.trim() === '' || chineseText.test(en) || placeholdersOf(zh).join() !== placeholdersOf(en).join(),
    );
    expect(bad).toEqual([]);
  });

  it('has no template that could match any text (parts side by side, or nothing but parts)', () => {
    expect(catalog.filter(([zh]) => zh.includes('}{') || zh.replace(/\{\d+\}/g, '').trim() === '').map(([zh]) => zh)).toEqual([]);
  });
});

describe('translate', () => {
  it('keeps Chinese for Chinese, and texts without Chinese as they are', () => {
    expect(translate('用户名或密码错误，或用户已被封禁', 'zh')).toBe('用户名或密码错误，或用户已被封禁');
    expect(translate('Incorrect API key provided', 'en')).toBe('Incorrect API key provided');
  });

  it('fills template parts, translating Chinese parts too', () => {
    expect(translate('模型倍率 1，补全倍率 2，分组倍率 1', 'en')).toBe('Model ratio 1, completion ratio 2, group ratio 1');
    expect(translate('模型倍率 0.5，补全倍率 4，音频倍率 3，分组倍率 1.2', 'en')).toBe(
      'Model ratio 0.5, completion ratio 4, audio ratio 3, group ratio 1.2',
    );
    expect(translate('当前分组 vip 下对于模型 gpt-4o 无可用渠道', 'en')).toBe('No available channel for model gpt-4o in group vip');
    expect(translate('Suno 任务 abc（MUSIC）失败，退还额度：任务超时', 'en')).toBe(
      'Suno task abc (MUSIC) failed, quota refunded: The task timed out',
    );
    expect(translate('管理员未开启通过 微信 登录以及注册', 'en')).toBe(
      'Sign-in and registration with WeChat are not enabled by the administrator',
    );
  });

  it('translates messages made of messages: field-prefixed and joined by "; "', () => {
    expect(translate('prompt: prompt 不能为空; notifyHook: notifyHook 必须是 http(s) 地址', 'en')).toBe(
      'prompt: prompt is required; notifyHook: notifyHook must be an http(s) URL',
    );
    expect(translate('GroupRatio 必须是 JSON 对象', 'en')).toBe('GroupRatio must be a JSON object');
  });

  it('leaves text it does not know as it is (an admin\u2019s own group description, an upstream message)', () => {
    expect(translate('企业客户专用', 'en')).toBe('企业客户专用');
    expect(translate('Rate limit reached for gpt-4o: 请稍后', 'en')).toBe('Rate limit reached for gpt-4o: 请稍后');
  });
});

describe('languageOf', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['zh', 'zh'],
    ['zh-CN,zh;q=0.9,en;q=0.8', 'zh'],
    ['zh_TW', 'zh'],
    ['en-US,en;q=0.9', 'en'],
    ['fr-FR,fr;q=0.9', 'en'],
    ['en;q=0.5, zh-CN;q=0.8', 'zh'],
    ['zh-CN;q=0.3, en;q=0.7', 'en'],
    ['zh;q=0, en', 'en'],
    ['*', 'en'],
    ['zhx', 'en'],
    ['zh;q=abc', 'en'],
  ] as const)('%j is %s', (header, language) => {
    expect(languageOf(header)).toBe(language);
  });
});
