/** What the channel list is filtered by. */
export interface ChannelFilters {
  keyword: string;
  group: string;
  model: string;
}

/** The channel list's query: filters, sort and tag mode. */
export interface ChannelListOptions {
  filters: ChannelFilters;
  isIdSort: boolean;
  isTagMode: boolean;
}

/** Query keys of the channels feature; every channel mutation invalidates `all`. */
export const channelKeys = {
  all: ['channels'] as const,
  list: (options: ChannelListOptions) => [...channelKeys.all, 'list', options] as const,
  one: (id: number) => [...channelKeys.all, 'one', id] as const,
  types: ['channel-types'] as const,
  models: ['channel-models'] as const,
};
