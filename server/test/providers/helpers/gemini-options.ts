import type { AdapterOptions } from '../../../src/relay/providers/types.js';
import { claudeTestOptions } from './adapter-options.js';

/** The gemini.* option defaults of server/src/options/registry.ts (plus the claude.* ones Vertex reads), with per-test overrides. */
export function geminiTestOptions(overrides: Record<string, string> = {}): AdapterOptions {
  return claudeTestOptions({
    'gemini.safety_settings': '{"default":"OFF"}',
    'gemini.version_settings': '{"default":"v1beta"}',
    'gemini.supported_imagine_models': '["gemini-2.0-flash-exp-image-generation"]',
    ...overrides,
  });
}
