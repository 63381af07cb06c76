import { ChannelStatus, type Channel, type ChannelListItem, type ChannelTagRow, type Page } from '@modelgate/shared';
import type { AppContext } from '../../context.js';
import { chineseText, translate, type Language } from '../../lib/i18n/index.js';
import { channelListColumns } from './channel-values.js';
import type { ListChannelsQuery, SearchChannelsQuery } from './schemas.js';

/** A channel of the list: every column but the key (the shared response type). */
type ChannelListRow = Channel;

const union = (lists: string[]) =>
  [
    ...new Set(
      lists
        .flatMap((list) => list.split(','))
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ].join(',');

function compareChannels(isIdSort: boolean) {
  return (a: ChannelListRow, b: ChannelListRow) => (isIdSort ? b.id - a.id : b.priority - a.priority || b.id - a.id);
}

/** Groups tagged channels under one row placed where the tag's first channel sorts. */
export function groupByTag(channels: ChannelListRow[]): ChannelListItem[] {
  const items: ChannelListItem[] = [];
  const tagRows = new Map<string, ChannelTagRow>();
  for (const channel of channels) {
    if (channel.tag === '') {
      items.push(channel);
      continue;
    }
    let row = tagRows.get(channel.tag);
    if (!row) {
      row = {
        is_tag: true,
        tag: channel.tag,
        name: channel.tag,
        type: channel.type,
        status: ChannelStatus.manuallyDisabled,
        priority: channel.priority,
        weight: channel.weight,
        models: '',
        group: '',
        used_quota: 0,
        balance: 0,
        response_time: 0,
        test_time: 0,
        created_time: channel.created_time,
        children: [],
      };
      tagRows.set(channel.tag, row);
      items.push(row);
    }
    row.children.push(channel);
  }
  for (const row of tagRows.values()) {
    const children = row.children;
    if (children.some((child) => child.status === ChannelStatus.enabled)) row.status = ChannelStatus.enabled;
    row.models = union(children.map((child) => child.models));
    row.group = union(children.map((child) => child.group));
    row.used_quota = children.reduce((sum, child) => sum + child.used_quota, 0);
    row.balance = children.reduce((sum, child) => sum + child.balance, 0);
    const tested = children.filter((child) => child.response_time > 0);
    row.response_time = tested.length > 0 ? Math.round(tested.reduce((sum, child) => sum + child.response_time, 0) / tested.length) : 0;
    row.test_time = Math.max(...children.map((child) => child.test_time));
  }
  return items;
}

function paginate<T>(items: T[], page: number, pageSize: number): Page<T> {
  return { items: items.slice((page - 1) * pageSize, page * pageSize), page, page_size: pageSize, total: items.length };
}

/** A channel's status reason (other_info.status_reason, written by the server in Chinese) in the viewer's language. */
function withReasonIn(language: Language) {
  return (channel: ChannelListRow): ChannelListRow => {
    if (language === 'zh' || !chineseText.test(channel.other_info)) return channel;
    try {
      const info = JSON.parse(channel.other_info) as unknown;
      if (!info || typeof info !== 'object' || typeof (info as { status_reason?: unknown }).status_reason !== 'string') return channel;
      const reason = (info as { status_reason: string }).status_reason;
      return { ...channel, other_info: JSON.stringify({ ...info, status_reason: translate(reason, language) }) };
    } catch {
      return channel;
    }
  };
}

async function allChannels(ctx: AppContext, isIdSort: boolean, language: Language): Promise<ChannelListRow[]> {
  const rows = await ctx.storage.db
    .selectFrom('channels')
    .select([...channelListColumns])
    .execute();
  return (rows as ChannelListRow[]).map(withReasonIn(language)).sort(compareChannels(isIdSort));
}

/**
 * GET /api/channel/: a page of channels (never their keys); tag mode pages over tag rows and untagged
 * channels. Status reasons are in the viewer's language.
 */
export async function findChannels(ctx: AppContext, query: ListChannelsQuery, language: Language): Promise<Page<ChannelListItem>> {
  if (query.tag_mode) {
    return paginate(groupByTag(await allChannels(ctx, query.id_sort, language)), query.p, query.page_size);
  }
  const db = ctx.storage.db;
  let select = db.selectFrom('channels').select([...channelListColumns]);
  select = query.id_sort ? select.orderBy('id', 'desc') : select.orderBy('priority', 'desc').orderBy('id', 'desc');
  const [items, count] = await Promise.all([
    select
      .limit(query.page_size)
      .offset((query.p - 1) * query.page_size)
      .execute(),
    db
      .selectFrom('channels')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    items: (items as ChannelListRow[]).map(withReasonIn(language)),
    page: query.p,
    page_size: query.page_size,
    total: Number(count.total),
  };
}

const listHas = (list: string, name: string) => list.split(',').some((item) => item.trim() === name);

/**
 * GET /api/channel/search: keyword matches the id exactly or is contained in the name or base URL
 * (case-insensitive); group and model must be members of the channel's comma lists.
 */
export async function searchChannels(ctx: AppContext, query: SearchChannelsQuery, language: Language): Promise<Page<ChannelListItem>> {
  const keyword = query.keyword.toLowerCase();
  const matches = (await allChannels(ctx, query.id_sort, language)).filter((channel) => {
    if (keyword !== '') {
      const isHit =
        String(channel.id) === keyword || channel.name.toLowerCase().includes(keyword) || channel.base_url.toLowerCase().includes(keyword);
      if (!isHit) return false;
    }
    if (query.group !== '' && !listHas(channel.group, query.group)) return false;
    if (query.model !== '' && !listHas(channel.models, query.model)) return false;
    return true;
  });
  return paginate(query.tag_mode ? groupByTag(matches) : matches, query.p, query.page_size);
}
