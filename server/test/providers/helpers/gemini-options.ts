import type { AdapterOptions } from '../../../src/relay/providers/types.js';

/** The gemini.* option defaults of server/src/options/registry.ts, with per-test overrides. */
export function geminiTestOptions(overrides: Record<string, string> = {}): AdapterOptions {
  const values: Record<string, string> = {
    'gemini.safety_settings': '{"default":"OFF"}',
    'gemini.version_settings': '{"default":"v1beta"}',
    'gemini.supported_imagine_models': '["gemini-2.0-flash-exp-image-generation"]',
    'claude.model_headers_settings': '{}',
    'claude.default_max_tokens': '{"default":8192}',
    'claude.thinking_adapter_enabled': 'true',
    'claude.thinking_adapter_budget_tokens_percentage': '0.8',
    ...overrides,
  };
  return {
    get: (key) => values[key] ?? '',
    json: <T>(key: string) => JSON.parse(values[key] ?? 'null') as T,
    number: (key) => Number(values[key] ?? 0),
    bool: (key) => values[key] === 'true',
  };
}
