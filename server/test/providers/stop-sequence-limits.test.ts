import { describe, expect, it } from 'vitest';
import { stopsForUpstream } from '../../src/relay/jobs/stop-sequences.js';
import { adapterForType } from '../../src/relay/providers/registry.js';

const six = ['a', 'b', 'c', 'd', 'e', 'f'];

/** How many of an Anthropic client's stop sequences each kind of channel is sent (the rest the gateway scans for). */
function sentTo(type: number, model: string): number {
  const adapter = adapterForType(type)!;
  return stopsForUpstream(six, adapter, adapter.chatConverter ?? null, model).length;
}

describe('stop sequences sent on to each upstream', () => {
  it.each([
    ['OpenAI', 1, 'gpt-4o', 4],
    ['OpenAI reasoning (refuses stop)', 1, 'gpt-5', 0],
    ['OpenAI o-series', 1, 'o4-mini', 0],
    ['Azure reasoning deployment', 3, 'o3', 0],
    ['Azure', 3, 'gpt-4o', 4],
    ['DeepSeek (OpenAI wire, no stated limit)', 43, 'deepseek-chat', 4],
    ['xAI', 48, 'grok-3', 4],
    ['xAI reasoning (refuses stop)', 48, 'grok-4', 0],
    ['GLM-4 (one stop word)', 26, 'glm-4-plus', 1],
    ['Gemini', 24, 'gemini-2.5-flash', 5],
    ['Vertex Gemini', 41, 'gemini-2.5-pro', 5],
    ['Vertex Claude', 41, 'claude-sonnet-4@20250514', 6],
    ['Claude', 14, 'claude-sonnet-4-20250514', 6],
    ['Cohere', 34, 'command-r-plus', 5],
    ['ERNIE', 15, 'ERNIE-4.0-8K', 4],
    ['Ollama', 4, 'llama3.1', 6],
    ['a converter that states no limit (Zhipu v3)', 16, 'chatglm_turbo', 0],
  ])('%s', (_name, type, model, count) => {
    expect(sentTo(type, model)).toBe(count);
  });
});
