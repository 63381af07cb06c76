import type { OptionUpdateInput } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { settingsKeys } from './keys';

/** PUT /api/option/: stores one option (silent: the caller collects the errors). */
export const updateOption = ({ key, value }: OptionUpdateInput) => http.put<null>('/api/option/', { key, value }, { silent: true });

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
 * Saves changed options, one PUT each: toggles first and one by one, the others in parallel.
 * Returns which keys failed; never throws.
 */
export async function saveChangedOptions(changes: Record<string, string>, save = updateOption): Promise<SaveResult> {
  const keys = Object.keys(changes);
  const toggles = keys.filter(isToggleKey);
  const others = keys.filter((key) => !isToggleKey(key));
  const failed: string[] = [];
  const messages: string[] = [];
  for (const key of toggles) {
    try {
      await save({ key, value: changes[key]! });
    } catch (error) {
      failed.push(key);
      messages.push(messageOf(error));
    }
  }
  const results = await Promise.allSettled(others.map((key) => save({ key, value: changes[key]! })));
  results.forEach((result, index) => {
    if (result.status === 'rejected') {
      failed.push(others[index]!);
      messages.push(messageOf(result.reason));
    }
  });
  return { attempted: keys.length, failed, messages };
}

/** Saves a panel's changed options, then refreshes the options and the status (which shows several of them). */
export function useUpdateOptions() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: Record<string, string>) => saveChangedOptions(changes),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: settingsKeys.options }),
        queryClient.invalidateQueries({ queryKey: settingsKeys.status }),
      ]),
  });
}
