import { isApiVersion } from '../../../options/api-version.js';
import { isSafetyThreshold } from '../../../options/gemini-safety.js';
import type { AdapterOptions } from '../types.js';

/** A `{ "default": x, "<model>": y }` option read for one model (model key, then `default`). */
export function settingForModel(options: AdapterOptions, key: string, model: string, fallback: string): string {
  let map: Record<string, unknown> = {};
  try {
    map = options.json<Record<string, unknown>>(key) ?? {};
  } catch {
    return fallback;
  }
  const value = map[model] ?? map.default;
  return typeof value === 'string' && value !== '' ? value : fallback;
}

export const safetyCategories = [
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
  'HARM_CATEGORY_CIVIC_INTEGRITY',
] as const;

/** Every harm category at the threshold of `gemini.safety_settings` (default OFF; a stored value that is not a threshold reads as it). */
export function safetySettingsFor(options: AdapterOptions, model: string): Array<{ category: string; threshold: string }> {
  const stored = settingForModel(options, 'gemini.safety_settings', model, 'OFF');
  const threshold = isSafetyThreshold(stored) ? stored : 'OFF';
  return safetyCategories.map((category) => ({ category, threshold }));
}

/** API version from `gemini.version_settings` (default v1beta; a stored value that is not a version reads as it). */
export function versionFor(options: AdapterOptions, model: string): string {
  const version = settingForModel(options, 'gemini.version_settings', model, 'v1beta');
  return isApiVersion(version) ? version : 'v1beta';
}
