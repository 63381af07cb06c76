import { abilitiesOf, rebuildAbilities } from '../../api/channels/abilities.js';
import type { TableMapper, TargetRow } from '../table-import.js';
import { float, int, text, inexactInteger } from '../values.js';
import { mapOneApiType } from './one-api-types.js';

type OneApiConfig = Partial<Record<'region' | 'sk' | 'ak' | 'user_id' | 'api_version' | 'library_id' | 'plugin' | 'vertex_ai_project_id' | 'vertex_ai_adc', string>>;

/** A JSON object column (one-api's config, new-api's channel_info), {} when absent or broken. */
function parseConfig(value: unknown): OneApiConfig {
  const raw = text(value).trim();
  if (!raw.startsWith('{')) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null ? (parsed as OneApiConfig) : {};
  } catch {
    return {};
  }
}

/**
 * new-api keeps the keys of a multi-key channel either one per line or, for JSON keys (Vertex
 * service accounts), as a JSON array; ModelGate reads one key per line, so an array becomes one
 * compact JSON document per line.
 */
function oneKeyPerLine(key: string, channelInfo: unknown): string {
  const info = parseConfig(channelInfo) as { is_multi_key?: boolean };
  const trimmed = key.trim();
  if (!info.is_multi_key || !trimmed.startsWith('[')) return key;
  try {
    const keys: unknown = JSON.parse(trimmed);
    if (!Array.isArray(keys)) return key;
    return keys.map((entry) => (typeof entry === 'string' ? entry : JSON.stringify(entry))).join('\n');
  } catch {
    return key;
  }
}

/**
 * one-api moved per-type settings from `other` to the `config` JSON: Azure's API version,
 * Cloudflare's account id, AWS's access keys, Vertex's region and service account. ModelGate
 * reads them as new-api does: from `other` and from the key.
 */
function oneApiValues(row: Record<string, unknown>, type: number): { key: string; other: string } {
  const config = parseConfig(row.config);
  let key = text(row.key);
  let other = text(row.other);
  if (type === 3 && other === '' && config.api_version) other = config.api_version;
  if (type === 39 && other === '' && config.user_id) other = config.user_id;
  if (type === 33 && config.ak && config.sk) key = `${config.ak}|${config.sk}|${config.region ?? 'us-east-1'}`;
  if (type === 41) {
    if (config.vertex_ai_adc) key = config.vertex_ai_adc;
    if (other === '' && config.region) other = config.region;
  }
  return { key, other };
}

/**
 * channels: every field, the status with its reason (new-api keeps status_reason/status_time in
 * other_info, as ModelGate does) and the balance. Multi-key channels keep their keys one per line,
 * which is how ModelGate rotates keys; new-api's per-key disabled marks are not carried.
 */
export const channelsMapper: TableMapper<'channels'> = {
  source: 'channels',
  target: 'channels',
  naturalKey: 'name',
  isNaturalKeyUnique: false,
  droppedColumns: ['system_prompt', 'header_override', 'remark', 'settings', 'need_reconcile'],
  rowNotes(row) {
    const info = parseConfig(row.channel_info) as { is_multi_key?: boolean; multi_key_status_list?: Record<string, number> };
    const statuses = Object.values(info.multi_key_status_list ?? {});
    return info.is_multi_key && statuses.some((status) => status !== 1)
      ? ['a multi-key channel with disabled keys; ModelGate keeps no per-key status, so every key is used again']
      : [];
  },
  map(row, ctx): TargetRow<'channels'> | string {
    const id = int(row.id);
    if (id <= 0) return 'it has no id';
    const inexact = inexactInteger(row, ['used_quota']);
    if (inexact) return inexact;
    let type = int(row.type);
    let baseUrl = text(row.base_url);
    let key = text(row.key);
    let other = text(row.other);
    if (ctx.schema.flavor === 'one-api') {
      const mapped = mapOneApiType(type);
      if (typeof mapped === 'string') return mapped;
      type = mapped.type;
      if (baseUrl === '' && mapped.baseUrl) baseUrl = mapped.baseUrl;
      ({ key, other } = oneApiValues(row, type));
    }
    key = oneKeyPerLine(key, row.channel_info);
    if (key.trim() === '') return 'it has no key';
    if (baseUrl.length > 512) return 'its base URL is longer than 512 characters';
    return {
      id,
      type,
      key,
      openai_organization: text(row.openai_organization).slice(0, 255),
      test_model: text(row.test_model).slice(0, 255),
      status: int(row.status, 1),
      name: text(row.name).slice(0, 191),
      weight: int(row.weight),
      created_time: int(row.created_time),
      test_time: int(row.test_time),
      response_time: int(row.response_time),
      base_url: baseUrl,
      other,
      balance: float(row.balance),
      balance_updated_time: int(row.balance_updated_time),
      models: text(row.models),
      group: text(row.group, 'default').slice(0, 255),
      used_quota: int(row.used_quota),
      model_mapping: text(row.model_mapping),
      status_code_mapping: text(row.status_code_mapping).slice(0, 1024),
      priority: int(row.priority),
      auto_ban: ctx.schema.has('channels', 'auto_ban') ? int(row.auto_ban, 1) : 1,
      other_info: text(row.other_info),
      tag: text(row.tag).slice(0, 191),
      setting: text(row.setting),
      param_override: text(row.param_override),
      max_input_tokens: int(row.max_input_tokens),
    };
  },
  // Abilities are never copied: they are rebuilt from each channel's groups and models, as
  // ModelGate builds them, in the transaction that writes the channels.
  async afterWrite(trx, ids) {
    await rebuildAbilities(trx, ids);
  },
  onImported(rows, ctx) {
    for (const row of rows) ctx.channelIds.add(row.id);
    for (const row of rows) {
      const { id, models = '', group = '', status = 1, priority = 0, weight = 0, tag = '' } = row;
      ctx.abilityCount += abilitiesOf({ id, models, group, status, priority, weight, tag }).length;
    }
  },
};
