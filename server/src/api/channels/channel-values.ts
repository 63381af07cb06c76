import { channelDefaults, iflytekDefaultVersion, jsonObjectText, toInteger, toNameList, type UpdateChannelInput } from '@modelgate/shared';
import type { Updateable } from 'kysely';
import type { ChannelsTable } from '../../db/schema.js';
import { invalidInput } from '../../lib/errors.js';

type ChannelFields = Omit<UpdateChannelInput, 'id'>;
export type ChannelValues = Omit<Updateable<ChannelsTable>, 'id'>;

const iflytekType = 18;
const modelNameMaxLength = 255;
const groupNameMaxLength = 64;
/** Column sizes of channels.group and channels.status_code_mapping (MySQL rejects longer values). */
const groupListMaxLength = 255;
const statusCodeMappingMaxLength = 1024;

/** Trims a base URL and drops trailing slashes. */
export const normalizeBaseUrl = (url: string): string => url.trim().replace(/\/+$/, '');

function checkNames(models: string[], groups: string[]): void {
  const longModel = models.find((model) => model.length > modelNameMaxLength);
  if (longModel) throw invalidInput(`模型名称不能超过 ${modelNameMaxLength} 个字符：${longModel.slice(0, 40)}…`);
  const longGroup = groups.find((group) => group.length > groupNameMaxLength);
  if (longGroup) throw invalidInput(`分组名称不能超过 ${groupNameMaxLength} 个字符`);
}

/**
 * Maps validated form fields to column values; fields left out stay out (an update keeps them).
 * An empty key is left out too: the editor sends '' when the key is not being replaced.
 */
export function channelValuesOf(input: ChannelFields): ChannelValues {
  const values: ChannelValues = {};
  if (input.name !== undefined) values.name = input.name.trim();
  if (input.type !== undefined) values.type = input.type;
  if (input.key !== undefined && input.key.trim() !== '') values.key = input.key.trim();
  if (input.base_url !== undefined && input.base_url !== null) values.base_url = normalizeBaseUrl(input.base_url);
  if (input.other !== undefined && input.other !== null) values.other = input.other.trim();
  if (input.openai_organization != null) values.openai_organization = input.openai_organization.trim();
  if (input.test_model != null) values.test_model = input.test_model.trim();
  if (input.max_input_tokens != null) values.max_input_tokens = input.max_input_tokens;
  if (input.model_mapping !== undefined) values.model_mapping = jsonObjectText(input.model_mapping) ?? '';
  if (input.status_code_mapping !== undefined) {
    values.status_code_mapping = jsonObjectText(input.status_code_mapping) ?? '';
    if (values.status_code_mapping.length > statusCodeMappingMaxLength) {
      throw invalidInput(`状态码映射不能超过 ${statusCodeMappingMaxLength} 个字符`);
    }
  }
  if (input.setting !== undefined) values.setting = jsonObjectText(input.setting) ?? '';
  if (input.param_override !== undefined) values.param_override = jsonObjectText(input.param_override) ?? '';
  if (input.other_info !== undefined) values.other_info = jsonObjectText(input.other_info) ?? '';
  const models = input.models !== undefined ? toNameList(input.models) : [];
  const groupInput = input.groups ?? input.group;
  const groups = groupInput !== undefined ? toNameList(groupInput) : [];
  checkNames(models, groups);
  if (input.models !== undefined) values.models = models.join(',');
  if (groupInput !== undefined) {
    values.group = (groups.length > 0 ? groups : [...channelDefaults.groups]).join(',');
    if (values.group.length > groupListMaxLength) throw invalidInput(`分组列表不能超过 ${groupListMaxLength} 个字符`);
  }
  if (input.auto_ban !== undefined) values.auto_ban = input.auto_ban === true || input.auto_ban === 1 ? 1 : 0;
  const priority = toInteger(input.priority);
  if (priority !== null) values.priority = priority;
  const weight = toInteger(input.weight);
  if (weight !== null) values.weight = weight;
  if (input.tag !== undefined) values.tag = input.tag?.trim() ?? '';
  if (input.status !== undefined) values.status = input.status;
  return values;
}

/** iFlytek channels with no API version set use the default one. */
export function applyTypeDefaults(values: ChannelValues, type: number, currentOther = ''): ChannelValues {
  if (type === iflytekType && (values.other ?? currentOther) === '') return { ...values, other: iflytekDefaultVersion };
  return values;
}

/** Columns of a channel safe to list: everything but the key. */
export const channelListColumns = [
  'id',
  'type',
  'openai_organization',
  'test_model',
  'status',
  'name',
  'weight',
  'created_time',
  'test_time',
  'response_time',
  'base_url',
  'other',
  'balance',
  'balance_updated_time',
  'models',
  'group',
  'used_quota',
  'model_mapping',
  'status_code_mapping',
  'priority',
  'auto_ban',
  'other_info',
  'tag',
  'setting',
  'param_override',
  'max_input_tokens',
] as const;
