import { z } from 'zod';
import { idField, int32, int32Max } from './fields.js';

/** Channel type numbers with their display names. */
export const channelTypeNames: Readonly<Record<number, string>> = {
  1: 'OpenAI',
  2: 'Midjourney Proxy',
  3: 'Azure OpenAI',
  4: 'Ollama',
  5: 'Midjourney Proxy Plus',
  8: '自定义渠道',
  11: 'PaLM2',
  14: 'Claude',
  15: '百度文心千帆',
  16: '智谱 ChatGLM',
  17: '阿里通义千问',
  18: '讯飞星火认知',
  19: '360 智脑',
  20: 'OpenRouter',
  21: '知识库：AI Proxy',
  22: '知识库：FastGPT',
  23: '腾讯混元',
  24: 'Google Gemini',
  25: 'Moonshot',
  26: '智谱 GLM-4V',
  31: '零一万物',
  33: 'AWS Claude',
  34: 'Cohere',
  35: 'MiniMax',
  36: 'Suno API',
  37: 'Dify',
  38: 'Jina',
  39: 'Cloudflare',
  40: 'SiliconCloud',
  41: 'Vertex AI',
  42: 'Mistral AI',
  43: 'DeepSeek',
  44: '嵌入模型：MokaAI M3E',
  45: '字节火山方舟、豆包',
  46: '百度文心千帆 V2',
  47: 'Xinference',
  48: 'xAI',
  50: 'Kling',
};

export const isKnownChannelType = (type: number): boolean => Object.hasOwn(channelTypeNames, type);

/**
 * Types whose key may be a JSON credential document. Vertex AI (41) also takes a plain API key
 * (express mode): a key that does not start with `{` or `[` is read as plain key(s).
 */
export const jsonKeyChannelTypes: readonly number[] = [41];

const isJsonKey = (type: number, key: string): boolean => jsonKeyChannelTypes.includes(type) && /^[[{]/.test(key.trim());

export const channelDefaults = { type: 1, autoBan: 1, groups: ['default'], priority: 0, weight: 0 } as const;
export const channelPriorityMin = -999;
/** iFlytek (type 18) uses this API version when `other` is left empty. */
export const iflytekDefaultVersion = 'v2.1';

export const channelMessages = {
  nameAndKeyRequired: '请填写渠道名称和渠道密钥！',
  modelsRequired: '请至少选择一个模型！',
  modelMappingInvalid: '模型映射必须是合法的 JSON 格式！',
  priorityInvalid: '优先级必须是整数！',
  priorityTooLow: `优先级不能小于 ${channelPriorityMin}！`,
  weightInvalid: '权重必须是非负整数！',
  noChanges: '没有任何修改！',
  tagChannelsRequired: '请先选择要设置标签的渠道！',
  tagRequired: '标签不能为空！',
  deleteSelectionRequired: '请先选择要删除的通道！',
  unknownType: '未知的渠道类型',
  jsonKeyInvalid: '该渠道类型的密钥必须是合法的 JSON 格式！',
  notFound: '渠道不存在',
  keyNeededToMove: '修改渠道的类型或代理地址时请同时填写新密钥：只有超级管理员可以保留原密钥',
  copyNotFound: '渠道未找到，请刷新页面后重试。',
  statusCodeMappingInvalid: '状态码映射必须是合法的 JSON 格式！',
  paramOverrideInvalid: '参数覆盖必须是合法的 JSON 格式！',
  settingInvalid: '渠道额外设置必须是合法的 JSON 格式！',
  otherInfoInvalid: 'other_info 必须是合法的 JSON 格式！',
} as const;

/** A JSON object sent either as text (the console's editors) or as an object; '' or null clears it. */
const jsonObjectField = z.union([z.string(), z.record(z.string(), z.unknown()), z.null()], {
  error: '必须是 JSON 对象或 JSON 文本',
});

/** Parses a JSON-object field to its stored text ('' for empty); null when it is not a JSON object. */
export function jsonObjectText(value: string | Record<string, unknown> | null | undefined): string | null {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return JSON.stringify(value);
  if (value.trim() === '') return '';
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? value.trim() : null;
  } catch {
    return null;
  }
}

const nameList = z.union([z.string(), z.array(z.string({ error: '必须是字符串' }))], {
  error: '必须是字符串数组或逗号分隔的字符串',
});

/** Splits a comma list (or array) into trimmed, non-empty, distinct names in their first order. */
export function toNameList(value: string | string[] | null | undefined): string[] {
  if (value === null || value === undefined) return [];
  const parts = Array.isArray(value) ? value : value.split(',');
  return [...new Set(parts.map((part) => part.trim()).filter((part) => part !== ''))];
}

/** An integer given as a number or a numeric string (the form's inputs are text). */
const looseInteger = z.union([z.number(), z.string()], { error: '必须是整数' });

export function toInteger(value: number | string | undefined | null): number | null {
  if (value === undefined || value === null) return null;
  const n = typeof value === 'number' ? value : value.trim() === '' ? Number.NaN : Number(value);
  return Number.isInteger(n) ? n : null;
}

/** Every editable channel field; all optional here, the create and update schemas add their rules. */
export const channelFieldsShape = {
  name: z.string({ error: '渠道名称必须是字符串' }).max(191, { error: '渠道名称不能超过 191 个字符' }).optional(),
  type: int32('渠道类型必须是整数').optional(),
  // Keys travel in request headers: a control character or a non-ASCII one would fail every call of the channel as "upstream unavailable".
  key: z
    .string({ error: '渠道密钥必须是字符串' })
    .max(1_000_000, { error: '渠道密钥过长' })
    .refine((value) => /^[\t\n\r\x20-\x7e]*$/.test(value), { error: '渠道密钥只能包含 ASCII 字符，多个密钥每行一个' })
    .optional(),
  base_url: z.string({ error: 'base_url 必须是字符串' }).max(512, { error: 'base_url 不能超过 512 个字符' }).nullish(),
  other: z.string({ error: 'other 必须是字符串' }).max(65535).nullish(),
  // Sent as the OpenAI-Organization header: a line break or a non-ASCII character would fail every call as "upstream unavailable".
  openai_organization: z
    .string({ error: 'openai_organization 必须是字符串' })
    .max(255)
    .refine((value) => /^[\x21-\x7e]*$/.test(value.trim()), { error: 'openai_organization 只能包含可见的 ASCII 字符，如 org-…' })
    .nullish(),
  test_model: z.string({ error: 'test_model 必须是字符串' }).max(255).nullish(),
  max_input_tokens: int32('max_input_tokens 必须是整数').min(0).nullish(),
  model_mapping: jsonObjectField.optional(),
  status_code_mapping: jsonObjectField.optional(),
  setting: jsonObjectField.optional(),
  param_override: jsonObjectField.optional(),
  other_info: jsonObjectField.optional(),
  models: nameList.optional(),
  groups: nameList.optional(),
  group: nameList.optional(),
  auto_ban: z.union([z.boolean(), z.literal(0), z.literal(1)], { error: 'auto_ban 必须是 0 或 1' }).optional(),
  priority: looseInteger.nullish(),
  weight: looseInteger.nullish(),
  tag: z.string({ error: '标签必须是字符串' }).max(191, { error: '标签不能超过 191 个字符' }).nullish(),
  status: z.union([z.literal(1), z.literal(2), z.literal(3)], { error: '状态必须是 1、2 或 3' }).optional(),
};

type ChannelFieldsInput = z.infer<z.ZodObject<typeof channelFieldsShape>>;

/** The channel rules shared by create, update and the console's form; adds issues with the form's messages. */
export function checkChannelFields(value: ChannelFieldsInput, ctx: z.RefinementCtx): void {
  const fail = (message: string) => ctx.addIssue({ code: 'custom', message, path: [] });
  if (value.type !== undefined && !isKnownChannelType(value.type)) fail(channelMessages.unknownType);
  if (value.model_mapping !== undefined && jsonObjectText(value.model_mapping) === null) {
    fail(channelMessages.modelMappingInvalid);
  }
  if (value.status_code_mapping !== undefined && jsonObjectText(value.status_code_mapping) === null) {
    fail(channelMessages.statusCodeMappingInvalid);
  }
  if (value.param_override !== undefined && jsonObjectText(value.param_override) === null) {
    fail(channelMessages.paramOverrideInvalid);
  }
  if (value.setting !== undefined && jsonObjectText(value.setting) === null) fail(channelMessages.settingInvalid);
  if (value.other_info !== undefined && jsonObjectText(value.other_info) === null) fail(channelMessages.otherInfoInvalid);
  if (value.models !== undefined && toNameList(value.models).length === 0) fail(channelMessages.modelsRequired);
  checkPriorityAndWeight(value, fail);
}

export function checkPriorityAndWeight(
  value: { priority?: number | string | null; weight?: number | string | null },
  fail: (message: string) => void,
): void {
  if (value.priority !== undefined && value.priority !== null) {
    const priority = toInteger(value.priority);
    if (priority === null) fail(channelMessages.priorityInvalid);
    else if (priority < channelPriorityMin) fail(channelMessages.priorityTooLow);
  }
  if (value.weight !== undefined && value.weight !== null) {
    const weight = toInteger(value.weight);
    if (weight === null || weight < 0) fail(channelMessages.weightInvalid);
  }
}

/**
 * The keys a create call makes channels from: one key, or in batch mode one per non-empty line
 * (a JSON credential takes a JSON array of credential objects instead). Null when malformed JSON.
 */
export function splitChannelKeys(type: number, key: string, isBatch: boolean): string[] | null {
  if (!isJsonKey(type, key)) {
    if (!isBatch) return key.trim() === '' ? [] : [key.trim()];
    return [
      ...new Set(
        key
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== ''),
      ),
    ];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(key);
  } catch {
    return null;
  }
  const isObject = (item: unknown) => typeof item === 'object' && item !== null && !Array.isArray(item);
  if (!isBatch) return isObject(parsed) ? [JSON.stringify(parsed)] : null;
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every(isObject)) return null;
  return parsed.map((item) => JSON.stringify(item));
}

/** POST /api/channel/: name, key and at least one model; `mode: 'batch'` makes one channel per key line. */
export const createChannelSchema = z
  .object({
    ...channelFieldsShape,
    mode: z.enum(['single', 'batch'], { error: 'mode 必须是 single 或 batch' }).optional(),
  })
  .superRefine((value, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message, path: [] });
    if (!value.name?.trim() || !value.key?.trim()) fail(channelMessages.nameAndKeyRequired);
    if (toNameList(value.models).length === 0) fail(channelMessages.modelsRequired);
    if (value.key && value.type !== undefined && splitChannelKeys(value.type, value.key, value.mode === 'batch') === null) {
      fail(channelMessages.jsonKeyInvalid);
    }
    checkChannelFields(value, ctx);
  });

/** PUT /api/channel/: id plus any fields (a status-, priority- or weight-only update is the same call). */
export const updateChannelSchema = z
  .object({
    ...channelFieldsShape,
    id: idField(),
  })
  .superRefine((value, ctx) => {
    if (value.name !== undefined && value.name.trim() === '') {
      ctx.addIssue({ code: 'custom', message: channelMessages.nameAndKeyRequired, path: [] });
    }
    checkChannelFields(value, ctx);
  });

/** PUT /api/channel/tag: edits every channel of a tag; an empty new_tag dissolves the tag. */
export const editChannelTagSchema = z
  .object({
    tag: z.string({ error: '标签必须是字符串' }).trim(),
    new_tag: z.string({ error: '新标签必须是字符串' }).max(191).nullish(),
    model_mapping: jsonObjectField.optional(),
    groups: nameList.nullish(),
    models: nameList.nullish(),
    priority: looseInteger.nullish(),
    weight: looseInteger.nullish(),
  })
  .superRefine((value, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message, path: [] });
    if (value.tag === '') fail(channelMessages.tagRequired);
    const given = [value.new_tag, value.model_mapping, value.groups, value.models, value.priority, value.weight].filter(
      (field) => field !== undefined && field !== null,
    );
    if (given.length === 0) fail(channelMessages.noChanges);
    if (value.model_mapping !== undefined && value.model_mapping !== null && jsonObjectText(value.model_mapping) === null) {
      fail(channelMessages.modelMappingInvalid);
    }
    if (value.models !== undefined && value.models !== null && toNameList(value.models).length === 0) {
      fail(channelMessages.modelsRequired);
    }
    checkPriorityAndWeight(value, fail);
  });

const channelIds = z.array(idField('ids'), { error: 'ids 必须是数字数组' }).max(10_000, { error: '一次最多选择 10000 个渠道' });

/** Adds a spec message with no field path, so the API answers with the message verbatim. */
const requireThat = (isValid: boolean, message: string, ctx: z.RefinementCtx) => {
  if (!isValid) ctx.addIssue({ code: 'custom', message, path: [] });
};

export const deleteChannelsSchema = z
  .object({ ids: channelIds })
  .superRefine((value, ctx) => requireThat(value.ids.length > 0, channelMessages.deleteSelectionRequired, ctx));

/** POST /api/channel/batch/tag: an empty or null tag clears the tag of the chosen channels. */
export const setChannelsTagSchema = z
  .object({
    ids: channelIds,
    tag: z.string({ error: '标签必须是字符串' }).max(191, { error: '标签不能超过 191 个字符' }).nullish(),
  })
  .superRefine((value, ctx) => requireThat(value.ids.length > 0, channelMessages.tagChannelsRequired, ctx));

const tagName = z.string({ error: '标签必须是字符串' }).trim().max(191, { error: '标签不能超过 191 个字符' }).optional();

export const channelTagSchema = z.object({ tag: tagName }).transform((value, ctx) => {
  requireThat(Boolean(value.tag), channelMessages.tagRequired, ctx);
  return { tag: value.tag ?? '' };
});

export type CreateChannelInput = z.infer<typeof createChannelSchema>;
export type UpdateChannelInput = z.infer<typeof updateChannelSchema>;
export type EditChannelTagInput = z.infer<typeof editChannelTagSchema>;

/** What the console sends to create a channel (the schema's input: numbers or numeric text, lists or comma text). */
export type CreateChannelPayload = z.input<typeof createChannelSchema>;
/** What the console sends to update a channel: its id and the fields it changes. */
export type UpdateChannelPayload = z.input<typeof updateChannelSchema>;
/** What the console sends to edit every channel of a tag. */
export type EditChannelTagPayload = z.input<typeof editChannelTagSchema>;
/** What the console sends to set (or with an empty tag clear) the tag of chosen channels. */
export type SetChannelsTagPayload = z.input<typeof setChannelsTagSchema>;

/** POST /api/channel/fetch_models: an unsaved channel's form; `other` carries what the type needs to list models (Cloudflare's account id, Vertex's region). */
export const fetchUpstreamModelsSchema = z.object({
  base_url: z.string().max(512).default(''),
  type: z.coerce.number().int().min(0).max(int32Max),
  key: z.string().max(100_000).default(''),
  other: z.string().max(10_000).default(''),
});
export type FetchUpstreamModelsPayload = z.input<typeof fetchUpstreamModelsSchema>;
