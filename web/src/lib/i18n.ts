import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en, zh } from '../locales';
import { readString, StorageKey, writeString } from './storage-keys';

export const languages = ['zh', 'en'] as const;
export type Language = (typeof languages)[number];

/** zh* and en* (any case, any region) are ours; anything else is not. */
function languageOf(tag: string | null | undefined): Language | null {
  const lower = (tag ?? '').trim().toLowerCase();
  if (lower.startsWith('zh')) return 'zh';
  if (lower.startsWith('en')) return 'en';
  return null;
}

/**
 * The browser's preference: the first of navigator.languages we speak (zh* Chinese, en* English);
 * a browser asking only for languages we lack gets English.
 */
export function browserLanguage(preferred: readonly string[] = navigator.languages ?? [navigator.language]): Language {
  for (const tag of preferred) {
    const language = languageOf(tag);
    if (language) return language;
  }
  return 'en';
}

/** The person's own choice (kept under i18nextLng) wins; without one, the browser's language. */
export function initialLanguage(): Language {
  return languageOf(readString(StorageKey.language)) ?? browserLanguage();
}

/** What the page, dayjs and antd's date pickers say for a language. */
function applyLanguage(language: string): void {
  const isEnglish = language === 'en';
  dayjs.locale(isEnglish ? 'en' : 'zh-cn');
  document.documentElement.lang = isEnglish ? 'en' : 'zh-CN';
}

void i18n.use(initReactI18next).init({
  resources: { zh: { translation: zh }, en: { translation: en } },
  lng: initialLanguage(),
  fallbackLng: 'zh',
  interpolation: { escapeValue: false },
  returnNull: false,
});
applyLanguage(i18n.language);
i18n.on('languageChanged', applyLanguage);

/** The language menu: switches and remembers the choice, so later visits open in it whatever the browser says. */
export function chooseLanguage(language: Language): Promise<unknown> {
  writeString(StorageKey.language, language);
  return i18n.changeLanguage(language);
}

export const currentLanguage = (): Language => languageOf(i18n.language) ?? 'zh';

export default i18n;
