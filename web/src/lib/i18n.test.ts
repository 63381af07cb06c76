import dayjs from 'dayjs';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeServer, ok } from '../test/render-route';
import { http } from './http';
import i18n, { browserLanguage, chooseLanguage, initialLanguage } from './i18n';
import { StorageKey } from './storage-keys';

afterEach(async () => {
  await i18n.changeLanguage('zh');
});

describe('the console language', () => {
  it('follows the first browser language it speaks; others get English', () => {
    expect(browserLanguage(['en-US', 'en'])).toBe('en');
    expect(browserLanguage(['zh-CN', 'zh'])).toBe('zh');
    expect(browserLanguage(['zh-TW'])).toBe('zh');
    expect(browserLanguage(['EN-gb'])).toBe('en');
    expect(browserLanguage(['fr-FR', 'zh-CN', 'en'])).toBe('zh');
    expect(browserLanguage(['de-DE', 'fr'])).toBe('en');
    expect(browserLanguage([])).toBe('en');
  });

  it('starts in the remembered choice, else in the browser language (jsdom says en-US)', () => {
    expect(navigator.languages[0]).toBe('en-US');
    expect(initialLanguage()).toBe('en');
    localStorage.setItem(StorageKey.language, 'zh');
    expect(initialLanguage()).toBe('zh');
    localStorage.setItem(StorageKey.language, 'en');
    expect(initialLanguage()).toBe('en');
    localStorage.setItem(StorageKey.language, 'klingon');
    expect(initialLanguage()).toBe('en');
  });

  it('a choice is remembered and moves dayjs and the page language along', async () => {
    await chooseLanguage('zh');
    expect(localStorage.getItem(StorageKey.language)).toBe('zh');
    expect(document.documentElement.lang).toBe('zh-CN');
    expect(dayjs.locale()).toBe('zh-cn');
    expect(dayjs.unix(0).format('MMMM')).toMatch(/月/);
    await chooseLanguage('en');
    expect(localStorage.getItem(StorageKey.language)).toBe('en');
    expect(document.documentElement.lang).toBe('en');
    expect(dayjs.locale()).toBe('en');
  });

  it('every request tells the server the console language', async () => {
    const { fetchMock } = fakeServer({ 'GET /api/anything': () => ok(1) });
    await chooseLanguage('en');
    await http.get('/api/anything');
    await chooseLanguage('zh');
    await http.get('/api/anything');
    const sent = fetchMock.mock.calls.map(([, init]) => (init?.headers as Record<string, string>)['Accept-Language']);
    expect(sent).toEqual(['en', 'zh']);
  });
});
