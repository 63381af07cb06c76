import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en, zh } from '../locales';
import { readString, StorageKey, writeString } from './storage-keys';

export const languages = ['zh', 'en'] as const;
export type Language = (typeof languages)[number];

function initialLanguage(): Language {
  const stored = readString(StorageKey.language);
  if (stored && stored.startsWith('en')) return 'en';
  return 'zh';
}

void i18n.use(initReactI18next).init({
  resources: { zh: { translation: zh }, en: { translation: en } },
  lng: initialLanguage(),
  fallbackLng: 'zh',
  interpolation: { escapeValue: false },
  returnNull: false,
});

i18n.on('languageChanged', (lng) => {
  writeString(StorageKey.language, lng);
  document.documentElement.lang = lng;
});

export default i18n;
