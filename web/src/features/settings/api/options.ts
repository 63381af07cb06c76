import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';

export interface OptionEntry {
  key: string;
  value: string;
}

export type OptionMap = Record<string, string>;

export const optionsQueryKey = ['options'] as const;

export async function fetchOptions(): Promise<OptionMap> {
  const list = await http.get<OptionEntry[]>('/api/option/');
  return Object.fromEntries(list.map((entry) => [entry.key, entry.value]));
}

export const useOptions = () => useQuery({ queryKey: optionsQueryKey, queryFn: fetchOptions });

/** One call per changed option; errors are collected by the caller. */
export const saveOption = (key: string, value: string) => http.put<unknown>('/api/option/', { key, value }, { silent: true });
