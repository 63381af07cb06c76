import type { ChannelListItem, ChannelTagRow, Page } from '@modelgate/shared';
import { http } from '../../../lib/http';
import type { ChannelListOptions } from './keys';

export const isTagRow = (item: ChannelListItem): item is ChannelTagRow => 'is_tag' in item && item.is_tag === true;
export const rowKeyOf = (item: ChannelListItem): string => (isTagRow(item) ? `tag:${item.tag}` : String(item.id));

/** GET /api/channel/ (or /api/channel/search with a filter): one page of channels, or of tag rows in tag mode. */
export function fetchChannels(
  { filters, isIdSort, isTagMode }: ChannelListOptions,
  page: number,
  pageSize: number,
): Promise<Page<ChannelListItem>> {
  const query = { p: page, page_size: pageSize, id_sort: isIdSort, tag_mode: isTagMode };
  const isSearch = filters.keyword.trim() !== '' || filters.group !== '' || filters.model.trim() !== '';
  return isSearch
    ? http.get<Page<ChannelListItem>>('/api/channel/search', {
        query: { ...query, keyword: filters.keyword.trim(), group: filters.group, model: filters.model.trim() },
      })
    : http.get<Page<ChannelListItem>>('/api/channel/', { query });
}
