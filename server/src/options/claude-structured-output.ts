/**
 * claude.structured_output_models: the Claude models that take a JSON schema themselves
 * (`output_config.format`, structured outputs), as model-name prefixes. For them a `response_format`
 * with a schema is sent as the schema; every other Claude model gets it as a tool it must call
 * (relay/providers/anthropic/output-format.ts). Anthropic made structured outputs generally available
 * on the Claude API and Bedrock for these models; older ones answer the field with a 400, so an entry
 * too many fails every structured call of that model: the list is an admin's to widen as models come.
 */
export const defaultStructuredOutputModels: readonly string[] = [
  'claude-opus-4-7',
  'claude-opus-4-6',
  'claude-sonnet-4-6',
  'claude-opus-4-5',
  'claude-sonnet-4-5',
  'claude-haiku-4-5',
];

const maxEntries = 200;
const maxLength = 128;
/** A model-name prefix: no spaces or control characters (names are matched, never sent). */
const prefixPattern = /^[^\s\p{Cc}]+$/u;

/** Why a value cannot be the setting (a JSON value already parsed), or null when it can. */
export function structuredOutputModelsProblem(value: unknown): string | null {
  if (!Array.isArray(value)) return '必须是 JSON 数组';
  if (value.length > maxEntries) return `最多 ${maxEntries} 个模型前缀`;
  const isPrefix = (entry: unknown) => typeof entry === 'string' && entry.length <= maxLength && prefixPattern.test(entry);
  return value.every(isPrefix) ? null : '必须是模型名前缀字符串的数组，如 ["claude-sonnet-4-5"]';
}

/** The option's check on save (the value is JSON already). */
export const structuredOutputModelsCheck = (value: string): string | null => structuredOutputModelsProblem(JSON.parse(value));
