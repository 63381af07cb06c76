import { describe, expect, it } from 'vitest';
import { namesUpstreamStop, stopsForUpstream } from '../../src/relay/jobs/stop-sequences.js';
import { createClaudeStreamTransform } from '../../src/relay/providers/anthropic/chat-stream.js';
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

describe('which upstream stop names the one sequence asked', () => {
  function names(type: number, model: string, stops: string[]): boolean {
    const adapter = adapterForType(type)!;
    const converter = adapter.chatConverter ?? null;
    return namesUpstreamStop(stops, stopsForUpstream(stops, adapter, converter, model), converter, model);
  }

  it.each([
    ['OpenAI, one sequence sent', 1, 'gpt-4o', ['END'], true],
    ['OpenAI, two sent: either could have ended it', 1, 'gpt-4o', ['END', 'STOP'], false],
    ['OpenAI reasoning, none sent: its stop is a natural end', 1, 'gpt-5', ['END'], false],
    ['Gemini, one sent', 24, 'gemini-2.5-flash', ['END'], true],
    ['Vertex Gemini, one sent', 41, 'gemini-2.5-pro', ['END'], true],
    ['Claude says which: its end_turn is not a sequence', 14, 'claude-sonnet-4-20250514', ['END'], false],
    ['Vertex Claude says which', 41, 'claude-sonnet-4@20250514', ['END'], false],
  ])('%s', (_name, type, model, stops, expected) => {
    expect(names(type, model, stops)).toBe(expected);
  });

  it('passes on the stop_sequence Claude reports, and not on its end_turn', () => {
    const finishOf = (delta: Record<string, unknown>) => {
      const transform = createClaudeStreamTransform('claude-sonnet-4-20250514');
      const chunks = transform.onEvent({
        event: 'message_delta',
        data: JSON.stringify({ type: 'message_delta', delta, usage: { output_tokens: 3 } }),
      }).chunks;
      return (chunks.at(-1)!.choices as Array<Record<string, unknown>>)[0]!;
    };
    expect(finishOf({ stop_reason: 'stop_sequence', stop_sequence: 'END' })).toMatchObject({ finish_reason: 'stop', stop_reason: 'END' });
    expect(finishOf({ stop_reason: 'end_turn', stop_sequence: null })).not.toHaveProperty('stop_reason');
  });
});
