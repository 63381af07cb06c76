import { saveOption } from '../api/options';

/** Keys of the enabled-toggle type end in Enabled / enabled. */
export const isToggleKey = (key: string): boolean => /enabled$/i.test(key);

export interface SaveResult {
  attempted: number;
  failed: string[];
  /** The server's message for each failed key (e.g. a toggle whose settings are missing). */
  messages: string[];
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Saves changed options: toggles first and one by one, the others in parallel.
 * Returns which keys failed; never throws.
 */
export async function saveChangedOptions(changes: Record<string, string>, save = saveOption): Promise<SaveResult> {
  const keys = Object.keys(changes);
  const toggles = keys.filter(isToggleKey);
  const others = keys.filter((key) => !isToggleKey(key));
  const failed: string[] = [];
  const messages: string[] = [];
  for (const key of toggles) {
    try {
      await save(key, changes[key]!);
    } catch (error) {
      failed.push(key);
      messages.push(messageOf(error));
    }
  }
  const results = await Promise.allSettled(others.map((key) => save(key, changes[key]!)));
  results.forEach((result, index) => {
    if (result.status === 'rejected') {
      failed.push(others[index]!);
      messages.push(messageOf(result.reason));
    }
  });
  return { attempted: keys.length, failed, messages };
}

export const stripTrailingSlashes = (value: string): string => value.trim().replace(/\/+$/, '');

export function isValidJson(text: string): boolean {
  if (text.trim() === '') return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
