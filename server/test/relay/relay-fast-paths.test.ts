import { Readable, Writable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { pipeStream } from '../helpers/pipe-stream.js';
import { readOpenAiUsage, readOpenAiUsageFromBytes } from '../../src/relay/providers/openai/chat.js';
import { createOpenAiChunkTransform } from '../../src/relay/providers/openai/chat-stream.js';

describe('usage read from the response tail', () => {
  const viaParse = (text: string) => readOpenAiUsage((JSON.parse(text) as Record<string, unknown>).usage);

  it('gives exactly what parsing the whole body gives', () => {
    const bodies = [
      {
        id: 'x',
        choices: [{ message: { content: 'a "usage": {"prompt_tokens": 99} } ' } }],
        usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
      },
      {
        id: 'x',
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 3 } },
        service_tier: 'default',
        system_fingerprint: 'fp_"x"',
      },
      { usage: { prompt_tokens: 1, prompt_cache_hit_tokens: 1, completion_tokens: 0 }, n: 1.5e3, ok: true, none: null },
      { data: [], usage: { total_tokens: 42 } },
    ];
    for (const body of bodies) {
      for (const text of [JSON.stringify(body), JSON.stringify(body, null, 2)]) {
        expect(readOpenAiUsageFromBytes(Buffer.from(text))).toEqual(viaParse(text));
      }
    }
  });

  it("gives up (undefined) when the usage is not the root object's own or is missing", () => {
    const cases = [
      { choices: [{ message: { content: 'hi' }, usage: { prompt_tokens: 3 } }] },
      { usage: { prompt_tokens: 3 }, choices: [{ message: { content: 'after' } }] },
      { usage: null },
      { id: 'no usage' },
    ];
    for (const body of cases) expect(readOpenAiUsageFromBytes(Buffer.from(JSON.stringify(body)))).toBeUndefined();
    expect(readOpenAiUsageFromBytes(Buffer.from('[{"usage":{"prompt_tokens":1}}]'))).toBeUndefined();
  });
});

function sse(events: unknown[]): string {
  return events.map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`).join('');
}

async function runStream(body: string, clientWantsUsage: boolean, pieceSize = 7) {
  const pieces: Buffer[] = [];
  for (let i = 0; i < body.length; i += pieceSize) pieces.push(Buffer.from(body.slice(i, i + pieceSize)));
  let written = '';
  const out = new Writable({
    write(chunk, _encoding, callback) {
      written += String(chunk);
      callback();
    },
  });
  let promptCounted = 0;
  const outcome = await pipeStream({
    upstream: { body: Readable.from(pieces) } as unknown as Dispatcher.ResponseData,
    out: out as unknown as ServerResponse,
    transform: createOpenAiChunkTransform({}),
    clientWantsUsage,
    idleTimeoutMs: 5000,
    pingIntervalMs: 0,
    abort: () => undefined,
    startedAt: Date.now(),
    model: 'gpt-4o-mini',
    countPromptTokens: () => {
      promptCounted += 1;
      return 11;
    },
  });
  return { written, outcome, promptCounted };
}

const chunk = (text: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
});

describe('read-only stream pass-through', () => {
  it('passes chunks through unchanged and takes usage from the usage chunk without counting', async () => {
    const usageChunk = {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 10, total_tokens: 22, prompt_tokens_details: { cached_tokens: 2 } },
    };
    const events = [chunk('Hello'), chunk(' world'), usageChunk];
    const body = `${sse(events)}data: [DONE]\n\n`;
    const hidden = await runStream(body, false);
    expect(hidden.outcome.usage).toEqual({ promptTokens: 12, completionTokens: 10, cachedTokens: 2 });
    expect(hidden.outcome.isUsageCounted).toBe(false);
    expect(hidden.promptCounted).toBe(0);
    expect(hidden.written).toBe(`${sse([chunk('Hello'), chunk(' world')])}data: [DONE]\n\n`);
    const shown = await runStream(body, true);
    expect(shown.written).toBe(body);
  });

  it('counts the passed-through text when the upstream sends no usage, and synthesizes the usage chunk', async () => {
    const words = Array.from({ length: 3000 }, (_, i) => chunk(`word${i} `)); // > the deferred limit
    const { outcome, written, promptCounted } = await runStream(`${sse(words)}data: [DONE]\n\n`, true, 4096);
    expect(outcome.isUsageCounted).toBe(true);
    expect(promptCounted).toBe(1);
    expect(outcome.usage.completionTokens).toBeGreaterThan(3000);
    const events = written.trim().split('\n\n');
    expect(events.at(-1)).toBe('data: [DONE]');
    const synthesized = JSON.parse(events.at(-2)!.slice(6)) as { id: string; usage: { prompt_tokens: number; completion_tokens: number } };
    expect(synthesized.id).toBe('chatcmpl-1');
    expect(synthesized.usage).toEqual({
      prompt_tokens: 11,
      completion_tokens: outcome.usage.completionTokens,
      total_tokens: 11 + outcome.usage.completionTokens,
    });
  });
});
