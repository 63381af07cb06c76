import type { ChannelTagRow as SharedChannelTagRow } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http, type Page } from '../../../lib/http';

/** A channel as the list and detail endpoints return it; no answer carries the key (see revealChannelKey). */
export interface Channel {
  id: number;
  name: string;
  type: number;
  base_url: string;
  other: string;
  openai_organization: string;
  max_input_tokens: number;
  model_mapping: string;
  status_code_mapping: string;
  setting: string;
  param_override: string;
  models: string;
  group: string;
  auto_ban: number;
  test_model: string;
  priority: number;
  weight: number;
  tag: string;
  status: number;
  response_time: number;
  balance: number;
  used_quota: number;
  created_time: number;
  other_info: string;
  test_time: number;
  balance_updated_time: number;
}

/** A tag row of tag mode: its channels are `children`. */
export type ChannelTagRow = SharedChannelTagRow<Channel>;

export type ChannelListItem = Channel | ChannelTagRow;
export const isTagRow = (item: ChannelListItem): item is ChannelTagRow => 'is_tag' in item && item.is_tag === true;
export const rowKeyOf = (item: ChannelListItem): string => (isTagRow(item) ? `tag:${item.tag}` : String(item.id));

export interface ChannelFilters {
  keyword: string;
  group: string;
  model: string;
}

export interface ChannelListOptions {
  filters: ChannelFilters;
  isIdSort: boolean;
  isTagMode: boolean;
}

export const channelsQueryKey = ['channels'] as const;
export const channelListKey = (options: ChannelListOptions) => [...channelsQueryKey, 'list', options] as const;
export const channelQueryKey = (id: number) => [...channelsQueryKey, 'one', id] as const;

export function fetchChannels({ filters, isIdSort, isTagMode }: ChannelListOptions, page: number, pageSize: number): Promise<Page<ChannelListItem>> {
  const query = { p: page, page_size: pageSize, id_sort: isIdSort, tag_mode: isTagMode };
  const isSearch = filters.keyword.trim() !== '' || filters.group !== '' || filters.model.trim() !== '';
  return isSearch
    ? http.get<Page<ChannelListItem>>('/api/channel/search', { query: { ...query, keyword: filters.keyword.trim(), group: filters.group, model: filters.model.trim() } })
    : http.get<Page<ChannelListItem>>('/api/channel/', { query });
}

/** The stored key of a channel: root only, an explicit reveal (POST /api/channel/:id/key). */
export const revealChannelKey = (id: number) => http.post<{ key: string }>(`/api/channel/${id}/key`);
export const fetchChannel = (id: number) => http.get<Channel>(`/api/channel/${id}`);
export const useChannel = (id: number | null) =>
  useQuery({ queryKey: channelQueryKey(id ?? 0), queryFn: () => fetchChannel(id!), enabled: id !== null, gcTime: 0 });

/** The form's payload: models and groups as arrays, JSON fields as text. */
export interface ChannelPayload {
  name: string;
  type: number;
  key: string;
  base_url: string;
  other: string;
  openai_organization: string;
  model_mapping: string;
  status_code_mapping: string;
  param_override: string;
  models: string[];
  groups: string[];
  auto_ban: 0 | 1;
  test_model: string;
  priority: number;
  weight: number;
  tag: string;
  setting: string;
  mode?: 'single' | 'batch';
}

/** What a save answers besides the channel: its models without a price or ratio (empty in self-use mode). */
export interface UnpricedModels {
  unpriced_models?: string[];
}

export const createChannel = (payload: ChannelPayload) => http.post<{ ids: number[] } & UnpricedModels>('/api/channel/', payload);
export const updateChannel = (payload: Partial<ChannelPayload> & { id: number; status?: number }) => http.put<Channel & UnpricedModels>('/api/channel/', payload);
export const deleteChannel = (id: number) => http.delete<null>(`/api/channel/${id}/`);
export const copyChannel = (id: number) =>
  http.post<{ id: number }>(`/api/channel/copy/${id}`, {}, { query: { suffix: '_复制', reset_balance: true } });
export const deleteDisabledChannels = () => http.delete<number>('/api/channel/disabled');
export const deleteChannels = (ids: number[]) => http.post<number>('/api/channel/batch', { ids });
export const setChannelsTag = (ids: number[], tag: string) => http.post<number>('/api/channel/batch/tag', { ids, tag });
export const fixChannels = () => http.post<number>('/api/channel/fix');

export interface TagEditPayload {
  tag: string;
  new_tag?: string | null;
  model_mapping?: string | null;
  groups?: string[] | null;
  models?: string[] | null;
  priority?: number | string | null;
  weight?: number | string | null;
}
export const editTag = (payload: TagEditPayload) => http.put<number>('/api/channel/tag', payload);
export const setTagEnabled = (tag: string, isEnabled: boolean) => http.post<number>(`/api/channel/tag/${isEnabled ? 'enabled' : 'disabled'}`, { tag });
