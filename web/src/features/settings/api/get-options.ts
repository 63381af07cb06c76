import type { OptionEntry } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { settingsKeys } from './keys';

/** The options by key, their values as stored text. */
export type OptionMap = Record<string, string>;

/** GET /api/option/: the non-secret options the caller may manage. */
export async function fetchOptions(): Promise<OptionMap> {
  const list = await http.get<OptionEntry[]>('/api/option/');
  return Object.fromEntries(list.map((entry) => [entry.key, entry.value]));
}

export const useOptions = () => useQuery({ queryKey: settingsKeys.options, queryFn: fetchOptions });
