import { channelDefaults, channelMessages, jsonObjectText, toNameList } from '@modelgate/shared';
import type { Channel, ChannelPayload } from '../api/channels';

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
}

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
  };
}

/** Spec 02 §5 channel-form rules in order; the first failing rule's message (zh text of the shared constants' keys). */
export function channelFormProblem(values: ChannelFormValues, isCreate: boolean): keyof typeof channelMessages | null {
  if (isCreate && (!values.name?.trim() || !values.key?.trim())) return 'nameAndKeyRequired';
  if (!isCreate && !values.name?.trim()) return 'nameAndKeyRequired';
  if (toNameList(values.models).length === 0) return 'modelsRequired';
  if (jsonObjectText(values.model_mapping) === null) return 'modelMappingInvalid';
  if (jsonObjectText(values.status_code_mapping) === null) return 'statusCodeMappingInvalid';
  if (jsonObjectText(values.param_override) === null) return 'paramOverrideInvalid';
  return null;
}

/** A trailing / is stripped from the base URL (spec 02 §5). */
export const stripTrailingSlash = (url: string): string => url.trim().replace(/\/+$/, '');
export const endsWithV1 = (url: string): boolean => /\/v1$/.test(stripTrailingSlash(url));

export function payloadOf(values: ChannelFormValues): ChannelPayload {
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
    mode: values.isBatch ? 'batch' : 'single',
  };
}
