import { defaultStructuredOutputModels, structuredOutputModelsProblem } from '../../../options/claude-structured-output.js';
import type { AdapterOptions } from '../types.js';
import { claudeOutputSchema } from './output-schema.js';
import type { Json } from '@modelgate/shared';

/**
 * Claude's structured outputs: recent models take the schema itself (`output_config.format`) and
 * answer it as plain JSON text; older ones refuse the field, so a `response_format` reaches them as a
 * tool they must call (shared/structured-output.ts). claude.structured_output_models says which is
 * which (options/claude-structured-output.ts); Anthropic, Bedrock and Vertex channels read the same list.
 */

/** The setting's prefixes; a stored value the option check would refuse (a hand-edited database) reads as the default. */
function structuredOutputModels(options: AdapterOptions): readonly string[] {
  try {
    const value = options.json<unknown>('claude.structured_output_models');
    return structuredOutputModelsProblem(value) === null ? (value as string[]) : defaultStructuredOutputModels;
  } catch {
    return defaultStructuredOutputModels;
  }
}

/**
 * The Anthropic name inside a platform's model id, lower-cased: Bedrock's `anthropic.claude-…-v1:0`,
 * its inference profiles (`us.anthropic.…`, `global.anthropic.…`) and ARNs ending in one lose their
 * `vendor.` prefixes; Vertex's `claude-…@20250929` starts with the name already.
 */
const anthropicNameOf = (model: string): string =>
  model
    .toLowerCase()
    .replace(/^.*\//, '')
    .replace(/^(?:[a-z][a-z-]*\.)+/, '');

/** Whether a Claude model takes `output_config.format`: its name starts with one of the setting's prefixes. */
export function takesOutputFormat(model: string, options: AdapterOptions): boolean {
  const name = anthropicNameOf(model);
  return structuredOutputModels(options).some((prefix) => name.startsWith(prefix.toLowerCase()));
}

/** ChatConverter.nativeJsonSchema for Claude models: the schema as `output_config.format` takes it, or null for the tool. */
export const claudeNativeJsonSchema = (schema: Json, model: string, options: AdapterOptions): Json | null =>
  takesOutputFormat(model, options) ? claudeOutputSchema(schema) : null;

/**
 * The `output_config.format` of a canonical `response_format`. Only a schema the model takes reaches
 * the Claude request as a `response_format` (jsonAsTool turns any other into a tool first).
 */
export function outputFormatOf(format: unknown): Json | null {
  if (!format || typeof format !== 'object' || (format as Json).type !== 'json_schema') return null;
  const schema = ((format as Json).json_schema as Json | undefined)?.schema;
  return schema && typeof schema === 'object' && !Array.isArray(schema) ? { type: 'json_schema', schema } : null;
}
