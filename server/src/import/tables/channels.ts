import { ChannelStatus } from '@modelgate/shared';
import { abilitiesOf, rebuildAbilities } from '../../api/channels/abilities.js';
import { isChannelTypeSupported, unsupportedTypeMessage } from '../../api/channels/validate-channel.js';
import type { ImportContext } from '../context.js';
import type { SourceRow } from '../source.js';
import type { TableMapper, TargetRow } from '../table-import.js';
import { float, int, text, inexactInteger } from '../values.js';
import { mapOneApiType } from './one-api-types.js';

type OneApiConfig = Partial<
  Record<'region' | 'sk' | 'ak' | 'user_id' | 'api_version' | 'library_id' | 'plugin' | 'vertex_ai_project_id' | 'vertex_ai_adc', string>
>;

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

/** The channel's ModelGate type (one-api numbers are mapped), or why it has none. */
function targetTypeOf(row: SourceRow, ctx: ImportContext): number | string {
  const type = int(row.type);
  if (ctx.schema.flavor !== 'one-api') return type;
  const mapped = mapOneApiType(type);
  return typeof mapped === 'string' ? mapped : mapped.type;
}

/**
 * A channel of a type ModelGate has no adapter for is imported disabled (2) with the reason in
 * other_info, as the console shows it: it is kept for the record but never selected by the relay.
 */
function statusAndInfoOf(row: SourceRow, type: number): { status: number; other_info: string } {
  const status = int(row.status, 1);
  const otherInfo = text(row.other_info);
  if (isChannelTypeSupported(type) || status !== ChannelStatus.enabled) return { status, other_info: otherInfo };
  const info = parseConfig(otherInfo) as Record<string, unknown>;
  const reason = `${unsupportedTypeMessage(type)}（导入时已禁用）`;
  return {
    status: ChannelStatus.manuallyDisabled,
    other_info: JSON.stringify({ ...info, status_reason: reason, status_time: Math.floor(Date.now() / 1000) }),
  };
}

/**
 * channels: every field, the status with its reason (new-api keeps status_reason/status_time in
 * other_info, as ModelGate does) and the balance. Multi-key channels keep their keys one per line,
 * which is how ModelGate rotates keys; new-api's per-key disabled marks are not carried.
 */
export const channelsMapper: TableMapper<'channels'> = {
  source: 'channels',
  target: 'channels',
  noun: 'channel',
  nameColumn: 'name',
  naturalKey: 'name',
  // Holds the time an unservable channel was disabled by the import: another at every run.
  uncompared: ['other_info'],
  droppedColumns: ['system_prompt', 'header_override', 'remark', 'settings', 'need_reconcile'],
  rowNotes(row, ctx) {
    const notes: string[] = [];
    const info = parseConfig(row.channel_info) as { is_multi_key?: boolean; multi_key_status_list?: Record<string, number> };
    const statuses = Object.values(info.multi_key_status_list ?? {});
    if (info.is_multi_key && statuses.some((status) => status !== 1)) {
      notes.push('a multi-key channel with disabled keys; ModelGate keeps no per-key status, so every key is used again');
    }
    const type = targetTypeOf(row, ctx);
    if (typeof type === 'number' && !isChannelTypeSupported(type) && int(row.status, 1) === ChannelStatus.enabled) {
      notes.push(
        `an enabled channel of type ${type}, which ModelGate cannot serve yet: imported disabled (status 2) with the reason in other_info`,
      );
    }
    return notes;
  },
  map(row, ctx): TargetRow<'channels'> | string {
    const id = int(row.id);
    if (id <= 0) return 'it has no id';
    const inexact = inexactInteger(row, ['used_quota']);
    if (inexact) return inexact;
    const type = targetTypeOf(row, ctx);
    if (typeof type === 'string') return type;
    let baseUrl = text(row.base_url);
    let key = text(row.key);
    let other = text(row.other);
    if (ctx.schema.flavor === 'one-api') {
      const mapped = mapOneApiType(int(row.type));
      if (typeof mapped !== 'string' && baseUrl === '' && mapped.baseUrl) baseUrl = mapped.baseUrl;
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
      ...statusAndInfoOf(row, type),
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
    for (const row of rows) {
      const { id, models = '', group = '', status = 1, priority = 0, weight = 0, tag = '' } = row;
      ctx.abilityCount += abilitiesOf({ id, models, group, status, priority, weight, tag }).length;
    }
  },
};
