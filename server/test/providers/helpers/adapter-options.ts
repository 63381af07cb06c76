import { defaultStructuredOutputModels } from '../../../src/options/claude-structured-output.js';
import type { AdapterOptions } from '../../../src/relay/providers/types.js';

/** The claude.* option defaults of server/src/options/registry.ts, with per-test overrides. */
export function claudeTestOptions(overrides: Record<string, string> = {}): AdapterOptions {
  const values: Record<string, string> = {
    'claude.model_headers_settings': '{}',
    'claude.default_max_tokens': '{"default":8192}',
    'claude.thinking_adapter_enabled': 'true',
    'claude.thinking_adapter_budget_tokens_percentage': '0.8',
    'claude.structured_output_models': JSON.stringify(defaultStructuredOutputModels),
    ...overrides,
  };
  return {
    get: (key) => values[key] ?? '',
    json: <T>(key: string) => JSON.parse(values[key] ?? 'null') as T,
    number: (key) => Number(values[key] ?? 0),
    bool: (key) => values[key] === 'true',
  };
}
