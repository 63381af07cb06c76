import {
  channelDefaults,
  channelMessages,
  createChannelSchema,
  toNameList,
  updateChannelSchema,
  type Channel,
  type CreateChannelPayload,
  type UpdateChannelPayload,
} from '@modelgate/shared';
import { firstProblem } from '../../../lib/form-rules';

/** The editor's values: models and groups as arrays, JSON fields as text. */
export interface ChannelFormValues {
  type: number;
  name: string;
  key: string;
  isBatch: boolean;
  base_url: string;
  other: string;
  openai_organization: string;
  models: string[];
  groups: string[];
  model_mapping: string;
  status_code_mapping: string;
  param_override: string;
  tag: string;
  priority: number | null;
  weight: number | null;
  auto_ban: boolean;
  test_model: string;
  /** Limits and multi-key mode, kept in the channel's `setting` JSON (its other fields are kept as they are). */
  max_concurrency: number | null;
  rpm_limit: number | null;
  key_max_concurrency: number | null;
  multi_key_mode: 'random' | 'polling';
  setting: string;
}

/** The `setting` fields the form edits. */
function settingOf(text: string | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const limitOf = (value: unknown): number => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 0);

export const emptyChannelForm: ChannelFormValues = {
  type: channelDefaults.type,
  name: '',
  key: '',
  isBatch: false,
  base_url: '',
  other: '',
  openai_organization: '',
  models: [],
  groups: [...channelDefaults.groups],
  model_mapping: '',
  status_code_mapping: '',
  param_override: '',
  tag: '',
  priority: channelDefaults.priority,
  weight: channelDefaults.weight,
  auto_ban: channelDefaults.autoBan === 1,
  test_model: '',
  max_concurrency: 0,
  rpm_limit: 0,
  key_max_concurrency: 0,
  multi_key_mode: 'random',
  setting: '',
};

export function formValuesOf(channel: Channel): ChannelFormValues {
  return {
    type: channel.type,
    name: channel.name,
    key: '',
    isBatch: false,
    base_url: channel.base_url ?? '',
    other: channel.other ?? '',
    openai_organization: channel.openai_organization ?? '',
    models: toNameList(channel.models),
    groups: toNameList(channel.group),
    model_mapping: channel.model_mapping ?? '',
    status_code_mapping: channel.status_code_mapping ?? '',
    param_override: channel.param_override ?? '',
    tag: channel.tag ?? '',
    priority: channel.priority,
    weight: channel.weight,
    auto_ban: channel.auto_ban === 1,
    test_model: channel.test_model ?? '',
    ...limitsOf(channel.setting),
    setting: channel.setting ?? '',
  };
}

function limitsOf(text: string | undefined) {
  const setting = settingOf(text);
  return {
    max_concurrency: limitOf(setting.max_concurrency),
    rpm_limit: limitOf(setting.rpm_limit),
    key_max_concurrency: limitOf(setting.key_max_concurrency),
    multi_key_mode: setting.multi_key_mode === 'polling' ? ('polling' as const) : ('random' as const),
  };
}

/** The `setting` JSON: the channel's own fields with the form's limits over them (a 0 limit is left out). */
function settingText(values: ChannelFormValues): string {
  const setting = settingOf(values.setting);
  for (const field of ['max_concurrency', 'rpm_limit', 'key_max_concurrency'] as const) {
    const limit = Math.max(0, Math.trunc(Number(values[field] ?? 0)) || 0);
    if (limit > 0) setting[field] = limit;
    else delete setting[field];
  }
  if (values.multi_key_mode === 'polling') setting.multi_key_mode = 'polling';
  else delete setting.multi_key_mode;
  return Object.keys(setting).length > 0 ? JSON.stringify(setting) : '';
}

/** A trailing / is stripped from the base URL. */
export const stripTrailingSlash = (url: string): string => url.trim().replace(/\/+$/, '');
export const endsWithV1 = (url: string): boolean => /\/v1$/.test(stripTrailingSlash(url));

/** The create payload the form's values make (models and groups as lists, JSON fields as text). */
export function payloadOf(values: ChannelFormValues): CreateChannelPayload {
  return {
    name: values.name.trim(),
    type: values.type,
    key: values.key.trim(),
    base_url: stripTrailingSlash(values.base_url ?? ''),
    other: values.other ?? '',
    openai_organization: values.openai_organization ?? '',
    model_mapping: values.model_mapping?.trim() ?? '',
    status_code_mapping: values.status_code_mapping?.trim() ?? '',
    param_override: values.param_override?.trim() ?? '',
    models: toNameList(values.models),
    groups: toNameList(values.groups),
    auto_ban: values.auto_ban ? 1 : 0,
    test_model: values.test_model?.trim() ?? '',
    priority: Math.trunc(Number(values.priority ?? 0)),
    weight: Math.trunc(Number(values.weight ?? 0)),
    tag: values.tag?.trim() ?? '',
    setting: settingText(values),
    mode: values.isBatch ? 'batch' : 'single',
  };
}

/** The update payload: the create payload without its mode, the key only when a new one was typed. */
export function updatePayloadOf(values: ChannelFormValues, id: number): UpdateChannelPayload {
  const { key, mode: _mode, ...rest } = payloadOf(values);
  return { id, ...rest, ...(key ? { key } : {}) };
}

/** A message the channel form shows: a key under channels.msg (channelMessages' names), or the API schema's own text. */
export type ChannelFormProblem = { key: string | null; message: string };

/** The payload's first problem by the API's own schema (createChannelSchema or updateChannelSchema), or null. */
export function channelPayloadProblem(payload: CreateChannelPayload | UpdateChannelPayload, isCreate: boolean): ChannelFormProblem | null {
  return firstProblem(isCreate ? createChannelSchema : updateChannelSchema, payload, channelMessages);
}
