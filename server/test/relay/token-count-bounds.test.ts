import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { countTokens } from 'gpt-tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countChatPromptTokens, countInputTokens, countTextTokens, exactTokenChars } from '../../src/relay/billing/token-count.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { billedState, createSdkCaller } from './sdk-setup.js';

/**
 * o200k's byte-pair merge is quadratic in a run its pattern does not split: before this bound,
 * 100,000 `x`s in a count_tokens call held the event loop for 4.7 s, and a 32 MB body of
 * unpunctuated CJK text would have held it for hours. Counting now costs a bounded time per
 * character and a bounded amount per call; these tests show the counts it gives stay close.
 */
const cjk =
  '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小';
/** Deterministic "random" text (a linear congruential generator), so a failure can be replayed. */
function scrambled(length: number, alphabet: string, seed = 7): string {
  let state = seed;
  let text = '';
  for (let i = 0; i < length; i += 1) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    text += alphabet[state % alphabet.length];
  }
  return text;
}
const words = ['gateway', 'relay', 'token', 'channel', 'quota', 'billing', 'stream', 'model', 'answer', 'the', 'a', 'of', 'is'];
function prose(wordCount: number): string {
  let state = 11;
  const out: string[] = [];
  for (let i = 0; i < wordCount; i += 1) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    out.push(words[state % words.length]! + (state % 17 === 0 ? '.' : state % 23 === 0 ? ',\n' : ''));
  }
  return out.join(' ');
}

describe('token counting: exact where it was, bounded where it was quadratic', () => {
  it('counts prose without long runs exactly as the tokenizer does', () => {
    for (const text of [prose(50), prose(3000), 'Hello, world! How many tokens?']) {
      expect(text.length).toBeLessThanOrEqual(exactTokenChars);
      expect(countTextTokens(text)).toBe(countTokens(text));
    }
  });

  it('counts unbroken runs in pieces within 2% of the whole-run count', () => {
    // Whole-run counts of these sizes still finish in a fraction of a second.
    for (const text of [scrambled(6000, cjk), scrambled(6000, 'abcdefghijklmnopqrstuvwxyz'), 'x'.repeat(6000) + 'y']) {
      const exact = countTokens(text);
      expect(Math.abs(countTextTokens(text) - exact) / exact).toBeLessThan(0.02);
    }
  });

  it('keeps a surrogate pair whole at a cut', () => {
    const emoji = '😀'.repeat(3000);
    const exact = countTokens(emoji);
    expect(Math.abs(countTextTokens(emoji) - exact) / exact).toBeLessThan(0.02);
  });

  it('estimates a text past the exact length from samples within 3%', () => {
    const long = prose(60_000);
    expect(long.length).toBeGreaterThan(exactTokenChars * 4);
    const exact = countTokens(long);
    for (let run = 0; run < 5; run += 1) expect(Math.abs(countTextTokens(long) - exact) / exact).toBeLessThan(0.03);
    const run = scrambled(200_000, cjk);
    const perPiece = Math.round((countTextTokens(run.slice(0, 20_000)) * run.length) / 20_000);
    expect(Math.abs(countTextTokens(run) - perPiece) / perPiece).toBeLessThan(0.03);
  });

  it('estimates many messages or inputs together past the exact length', () => {
    const text = prose(2000);
    const messages = Array.from({ length: 40 }, () => ({ role: 'user', content: text }));
    const each = countTokens(text);
    // 3 for the reply, and per message 3 + the role's one token.
    const exact = 3 + 40 * (3 + 1 + each);
    expect(Math.abs(countChatPromptTokens(messages) - exact) / exact).toBeLessThan(0.03);
    const inputs = Array.from({ length: 40 }, () => text);
    expect(Math.abs(countInputTokens([...inputs, [1, 2, 3]]) - (40 * each + 3)) / (40 * each)).toBeLessThan(0.03);
    // Below the exact length, each input is still counted on its own.
    expect(countInputTokens(['one two', [5, 6]])).toBe(countTokens('one two') + 2);
  });
});

describe('counting a hostile prompt on the relay answers at once', () => {
  let server: TestServer;
  let upstream: http.Server;
  let upstreamUrl: string;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let channelId: number;

  beforeAll(async () => {
    server = await startTestServer();
    // An OpenAI-wire upstream whose speech answer is audio bytes without usage, as OpenAI's is.
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'audio/mpeg' });
        res.end(Buffer.alloc(64, 1));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-count': 1, 'tts-count': 1 }));
    caller = await createSdkCaller(server.ctx);
    channelId = await createRelayChannel(server.ctx, { type: 1, key: 'sk-up', baseURL: upstreamUrl, models: ['gpt-count', 'tts-count'] });
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  });

  it('counts 2 MB of unpunctuated CJK text with the Anthropic SDK', async () => {
    const content = scrambled(700_000, cjk);
    const client = new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 });
    const counted = await client.messages.countTokens({ model: 'gpt-count', messages: [{ role: 'user', content }] });
    const expected = (countTextTokens(content.slice(0, 20_000)) * content.length) / 20_000;
    expect(Math.abs(counted.input_tokens - expected) / expected).toBeLessThan(0.03);
  });

  it('bills a long unbroken speech input by its estimated tokens', async () => {
    const input = 'x'.repeat(300_000);
    const response = await fetch(`${server.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${caller.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-count', voice: 'alloy', input }),
    });
    expect(response.status).toBe(200);
    expect((await response.arrayBuffer()).byteLength).toBe(64);
    // Eight x's make one o200k token.
    const state = await billedState(server.ctx, { ...caller, channelId });
    expect(state.logs).toHaveLength(1);
    expect(Math.abs(state.logs[0]!.prompt_tokens - input.length / 8) / (input.length / 8)).toBeLessThan(0.02);
  });
});
