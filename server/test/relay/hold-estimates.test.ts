import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { fallbackOutputAllowance, outputAllowance } from '../../src/relay/billing/output-allowance.js';
import { countChatPromptTokens, estimateTextTokens } from '../../src/relay/billing/token-count.js';
import { clampUsage, maxUsageTokens, usageCount } from '../../src/relay/billing/usage-count.js';
import { estimateChatPromptTokens, estimatePromptTokens } from '../../src/relay/jobs/json-body.js';
import { addResponseUsage, emptyRealtimeUsage } from '../../src/relay/realtime/usage.js';

const samples: Record<string, string> = {
  chinese: '请详细解释一下量子计算的基本原理，包括量子比特、叠加态和纠缠，并举例说明它们在密码学中的应用。生僻字：龘靐齉爩麤',
  japanese: '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。カタカナのテキストも含みます。',
  korean: '대한민국의 수도는 서울이며, 한국어는 한글로 표기합니다. 토큰 수를 과소평가하면 안 됩니다.',
  russian: 'Съешь же ещё этих мягких французских булок, да выпей чаю. Быстрая оценка токенов без токенизатора.',
  english: 'The quick brown fox jumps over the lazy dog. Billing must stay exact under concurrency and faults.',
  code: 'for (let i = 0; i < n; i += 1) { total += values[i]!.quota ?? 0; } // 0x7fffffff 1234567890',
  digits: '3.14159265358979323846264338327950288419716939937510 2718281828459045235360287471352662497757',
  emoji: '🙂🚀🔥👍🏽👨‍👩‍👧‍👦🇨🇳✨🎉',
};

describe('hold estimates', () => {
  it('never count fewer prompt tokens than o200k does, for CJK, Cyrillic, English, code, digits and emoji', () => {
    for (const [name, text] of Object.entries(samples)) {
      expect(Math.ceil(estimateTextTokens(text)), name).toBeGreaterThanOrEqual(countTokens(text));
      // Never more than twice too low even for text built to be expensive: a token is at least one byte.
      expect(Math.ceil(estimateTextTokens(text)) * 2, name).toBeGreaterThanOrEqual(countTokens(text));
      const messages = [
        { role: 'system', content: text },
        { role: 'user', content: [{ type: 'text', text }] },
      ];
      expect(estimatePromptTokens(messages) + 3, name).toBeGreaterThanOrEqual(
        countChatPromptTokens([
          { role: 'system', content: text },
          { role: 'user', content: text },
        ]),
      );
    }
    const worst = Array.from({ length: 200 }, (_, i) => String.fromCharCode(33 + ((i * 37) % 94))).join(' ');
    expect(Math.ceil(estimateTextTokens(worst)) * 2).toBeGreaterThanOrEqual(countTokens(worst));
    // chars ÷ 4, the old estimate, was far below for Chinese.
    expect(Math.ceil(samples.chinese!.length / 4)).toBeLessThan(countTokens(samples.chinese!));
    expect(estimatePromptTokens([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] }])).toBeGreaterThanOrEqual(
      1_105,
    );
  });

  it('counts tool definitions and tool call arguments into the prompt estimate', () => {
    const tools = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: '查询某个城市的天气预报，返回温度和降水概率',
          parameters: {
            type: 'object',
            properties: {
              city: { type: 'string', description: 'City name, e.g. 北京' },
              days: { type: 'integer', minimum: 1, maximum: 14 },
            },
            required: ['city'],
          },
        },
      },
    ];
    const calls = [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"上海","days":3}' } }];
    const messages = [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: null, tool_calls: calls },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
    ];
    const bare = estimateChatPromptTokens({ messages });
    const withoutCalls = estimateChatPromptTokens({ messages: messages.map(({ tool_calls: _, ...message }) => message) });
    expect(bare - withoutCalls).toBeGreaterThanOrEqual(countTokens(JSON.stringify(calls)));
    expect(estimateChatPromptTokens({ messages, tools }) - bare).toBeGreaterThanOrEqual(countTokens(JSON.stringify(tools)));
  });

  it('holds the default output of known model families, and a fallback for the rest', () => {
    expect(outputAllowance('gpt-4o-mini')).toBe(16_384);
    expect(outputAllowance('gpt-4-turbo-2024-04-09')).toBe(4_096);
    expect(outputAllowance('gpt-4')).toBe(8_192);
    expect(outputAllowance('claude-3-haiku-20240307')).toBe(4_096);
    expect(outputAllowance('claude-sonnet-4-20250514')).toBe(8_192);
    expect(outputAllowance('gemini-2.5-pro')).toBe(65_536);
    expect(outputAllowance('o3-mini')).toBe(100_000);
    expect(outputAllowance('some-local-model')).toBe(fallbackOutputAllowance);
  });

  it('reads upstream counters as non-negative safe integers', () => {
    const cases: Array<[unknown, number]> = [
      [13.5, 13],
      [3e9, maxUsageTokens],
      [1e300, maxUsageTokens],
      [-5, 0],
      [Number.NaN, 0],
      [Number.POSITIVE_INFINITY, maxUsageTokens],
      [Number.NEGATIVE_INFINITY, 0],
      ['12', 12],
      ['NaN', 0],
      ['1e3', 0],
      ['-3', 0],
      [null, 0],
      [true, 0],
      [{}, 0],
      [7, 7],
    ];
    for (const [value, expected] of cases) expect(usageCount(value), String(value)).toBe(expected);
    const clean = { promptTokens: 10, completionTokens: 5, cachedTokens: 2 };
    expect(clampUsage(clean)).toBe(clean);
    expect(clampUsage({ promptTokens: 10.5, completionTokens: -1, cachedTokens: 50, cacheCreationTokens: 3 })).toEqual({
      promptTokens: 10,
      completionTokens: 0,
      cachedTokens: 10,
      cacheCreationTokens: 0,
    });
    expect(clampUsage({ promptTokens: '7' as never, completionTokens: 1e300, cachedTokens: Number.NaN })).toEqual({
      promptTokens: 7,
      completionTokens: maxUsageTokens,
      cachedTokens: 0,
    });
  });

  it('sums realtime response.done usage from clamped counters', () => {
    const total = emptyRealtimeUsage();
    addResponseUsage(total, {
      input_tokens: 1e300,
      output_tokens: -5,
      input_token_details: { text_tokens: 13.5, audio_tokens: 'x', cached_tokens: 1e300 },
      output_token_details: { text_tokens: Number.NaN },
    });
    expect(total).toEqual({
      responses: 1,
      textInputTokens: 13,
      audioInputTokens: 0,
      cachedTextTokens: 13,
      cachedAudioTokens: 0,
      textOutputTokens: 0,
      audioOutputTokens: 0,
    });
    addResponseUsage(total, { input_tokens: 3e9, output_tokens: 20 });
    expect(total.textInputTokens).toBe(13 + maxUsageTokens);
    expect(total.textOutputTokens).toBe(20);
  });
});
