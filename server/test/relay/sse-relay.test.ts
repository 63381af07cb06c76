import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Readable, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Usage } from '../../src/relay/billing/quota.js';
import { StreamingTokenCounter } from '../../src/relay/billing/token-count.js';
import { UpstreamError } from '../../src/relay/errors.js';
import { openAiStream, pipeStream, type OpenAiStream, type StreamOptions, type StreamOutcome } from '../helpers/pipe-stream.js';
import { createOpenAiChunkTransform } from '../../src/relay/providers/openai/chat-stream.js';
import type { ChunkTransform, ChunkVerdict } from '../../src/relay/providers/types.js';
import type { Json } from '@modelgate/shared';

// ---------------------------------------------------------------------------------------------
// Test doubles and helpers
// ---------------------------------------------------------------------------------------------

/** The part of ServerResponse the stream driver uses; records every write and lets the test drive 'drain'/'close'. */
class FakeOut extends EventEmitter {
  readonly writes: string[] = [];
  /** Every write as it was given (a string, or a Buffer of the upstream's bytes). */
  readonly chunks: (string | Buffer)[] = [];
  /** What write() returns (false: the client's buffer is full). */
  writeResult = true;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  corks = 0;
  uncorks = 0;
  endCalls = 0;

  write(chunk: string | Buffer): boolean {
    if (this.writableEnded) throw new Error('write after end');
    this.chunks.push(chunk);
    this.writes.push(String(chunk));
    return this.writeResult;
  }

  end(chunk?: string | Buffer): this {
    if (this.writableEnded) throw new Error('end called twice');
    if (chunk !== undefined) this.writes.push(String(chunk));
    this.endCalls += 1;
    this.writableEnded = true;
    this.writableFinished = true;
    return this;
  }

  cork(): void {
    this.corks += 1;
  }

  uncork(): void {
    this.uncorks += 1;
  }

  get text(): string {
    return this.writes.join('');
  }

  /** The client went away: the socket is destroyed and the response emits 'close'. */
  clientClose(): void {
    this.destroyed = true;
    this.emit('close');
  }

  drain(): void {
    this.emit('drain');
  }
}

interface Harness {
  relay: OpenAiStream;
  out: FakeOut;
  aborts: string[];
  resumes: () => number;
  promptCalls: () => number;
}

const promptTokens = 11;

function harness(overrides: Partial<Omit<StreamOptions, 'out' | 'abort' | 'countPromptTokens'>> = {}): Harness {
  const out = new FakeOut();
  const aborts: string[] = [];
  let resumes = 0;
  let promptCalls = 0;
  const options: StreamOptions = {
    out: out as unknown as ServerResponse,
    transform: createOpenAiChunkTransform({}),
    clientWantsUsage: false,
    idleTimeoutMs: 60_000,
    pingIntervalMs: 0,
    abort: (reason) => aborts.push(reason),
    startedAt: Date.now(),
    model: 'gpt-4o-mini',
    countPromptTokens: () => {
      promptCalls += 1;
      return promptTokens;
    },
    ...overrides,
  };
  const relay = openAiStream(options, () => {
    resumes += 1;
  });
  return { relay, out, aborts, resumes: () => resumes, promptCalls: () => promptCalls };
}

interface RunResult {
  text: string;
  outcome: StreamOutcome;
  promptCalls: number;
  out: FakeOut;
}

/** Feeds the pieces, ends the stream and waits for the outcome. */
async function run(
  pieces: Buffer[],
  overrides: Partial<Omit<StreamOptions, 'out' | 'abort' | 'countPromptTokens'>> = {},
): Promise<RunResult> {
  const h = harness(overrides);
  for (const piece of pieces) h.relay.data(piece);
  h.relay.end();
  const outcome = await h.relay.done;
  return { text: h.out.text, outcome, promptCalls: h.promptCalls(), out: h.out };
}

/** pipeStream's options for a pulled upstream: plain OpenAI transform, no usage asked, no ping. */
function pullOptions(body: AsyncIterable<unknown>, out: ServerResponse, promptCount: number): Parameters<typeof pipeStream>[0] {
  return {
    upstream: { body },
    out,
    transform: createOpenAiChunkTransform({}),
    clientWantsUsage: false,
    idleTimeoutMs: 5000,
    pingIntervalMs: 0,
    abort: () => undefined,
    startedAt: Date.now(),
    model: 'gpt-4o-mini',
    countPromptTokens: () => promptCount,
  };
}

/** The body cut at the given byte offsets. */
function cutAt(body: Buffer, offsets: number[]): Buffer[] {
  const pieces: Buffer[] = [];
  let previous = 0;
  for (const offset of offsets) {
    pieces.push(body.subarray(previous, offset));
    previous = offset;
  }
  pieces.push(body.subarray(previous));
  return pieces;
}

/** The body in pieces of `size` bytes (the last one may be shorter). */
function piecesOf(body: Buffer, size: number): Buffer[] {
  const pieces: Buffer[] = [];
  for (let i = 0; i < body.length; i += size) pieces.push(body.subarray(i, i + size));
  return pieces;
}

interface SseEvent {
  event: string | null;
  data: string;
}

/** A spec-compliant SSE parse (what an EventSource/SDK client sees): comments ignored, empty events skipped. */
function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  let data: string[] = [];
  let event: string | null = null;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) events.push({ event, data: data.join('\n') });
      data = [];
      event = null;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  }
  return events;
}

const contentChunk = (id: string, content: string, extra: Json = {}): Json => ({
  id,
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
  ...extra,
});

const usageOnlyChunk = (id: string): Json => ({
  id,
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'gpt-4o-mini',
  choices: [],
  usage: { prompt_tokens: 21, completion_tokens: 34, total_tokens: 55, prompt_tokens_details: { cached_tokens: 5 } },
});

const upstreamUsage: Usage = { promptTokens: 21, completionTokens: 34, cachedTokens: 5 };

const event = (chunk: Json | string, eol = '\n'): string =>
  `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}${eol}${eol}`;
const doneEvent = 'data: [DONE]\n\n';

const tenTexts = ['Hello', ', this', ' is', ' a', ' streamed', ' answer', ' in', ' ten', ' little', ' pieces.'];

/** 10 content chunks (the last with finish_reason), one usage-only chunk, [DONE]. */
function realisticBody(eol = '\n'): { body: string; contentEvents: string; usageEvent: string } {
  const chunks = tenTexts.map((text, i) =>
    contentChunk('chatcmpl-abc', text, i === 9 ? { choices: [{ index: 0, delta: { content: text }, finish_reason: 'stop' }] } : {}),
  );
  chunks[0] = { ...chunks[0], choices: [{ index: 0, delta: { role: 'assistant', content: tenTexts[0] }, finish_reason: null }] };
  const contentEvents = chunks.map((chunk) => event(chunk, eol)).join('');
  const usageEvent = event(usageOnlyChunk('chatcmpl-abc'), eol);
  return { body: `${contentEvents}${usageEvent}data: [DONE]${eol}${eol}`, contentEvents, usageEvent };
}

/** What the StreamingTokenCounter gives for these texts pushed in order (the relay's counting when no usage came). */
function referenceCount(texts: string[]): number {
  const counter = new StreamingTokenCounter();
  for (const text of texts) counter.push(text);
  return counter.finish();
}

/** All ways of delivering the body checked by the splitting tests: whole, 2 pieces at every offset, k-byte pieces for every k. */
function* deliveries(body: Buffer): Generator<{ label: string; pieces: Buffer[] }> {
  yield { label: 'whole', pieces: [body] };
  for (let offset = 1; offset < body.length; offset += 1) yield { label: `split at ${offset}`, pieces: cutAt(body, [offset]) };
  for (let size = 1; size < body.length; size += 1) yield { label: `${size}-byte pieces`, pieces: piecesOf(body, size) };
}

const dataOf = (line: string): Json => JSON.parse(line.replace(/^data: ?/, '')) as Json;

/** The text the client receives in delta.content, read from its output. */
function clientContent(text: string): string {
  let content = '';
  for (const { data } of parseSse(text)) {
    if (data === '[DONE]') continue;
    const chunk = JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }> };
    for (const choice of chunk.choices ?? []) content += choice.delta?.content ?? '';
  }
  return content;
}

function openAiErrorFrame(message: string, code: string, type = 'server_error'): string {
  return `data: ${JSON.stringify({ error: { message, type, param: null, code } })}\n\n`;
}

afterEach(() => {
  vi.useRealTimers();
});

// ---------------------------------------------------------------------------------------------
// 1. Splitting invariance
// ---------------------------------------------------------------------------------------------

describe('stream driver: the way the upstream splits its bytes does not matter', () => {
  const { body, contentEvents, usageEvent } = realisticBody();
  const bytes = Buffer.from(body);

  it('delivers the exact expected bytes when the body arrives in one piece', async () => {
    const hidden = await run([bytes], { clientWantsUsage: false });
    expect(hidden.text).toBe(contentEvents + doneEvent);
    expect(hidden.outcome.usage).toEqual(upstreamUsage);
    expect(hidden.outcome.isUsageCounted).toBe(false);
    expect(hidden.outcome.isClientGone).toBe(false);
    expect(hidden.outcome.isIdleTimeout).toBe(false);
    expect(hidden.promptCalls).toBe(0);
    const shown = await run([bytes], { clientWantsUsage: true });
    expect(shown.text).toBe(body);
    expect(shown.text).toBe(contentEvents + usageEvent + doneEvent);
    expect(shown.outcome.usage).toEqual(upstreamUsage);
    expect(shown.promptCalls).toBe(0);
  });

  it('is byte-identical for every 2-piece split and every piece size (LF framing)', async () => {
    for (const clientWantsUsage of [false, true]) {
      const expected = clientWantsUsage ? body : contentEvents + doneEvent;
      for (const { label, pieces } of deliveries(bytes)) {
        const result = await run(pieces, { clientWantsUsage });
        expect(result.text, `${label}, clientWantsUsage=${clientWantsUsage}`).toBe(expected);
        expect(result.outcome.usage).toEqual(upstreamUsage);
        expect(result.outcome.isUsageCounted).toBe(false);
      }
    }
  });

  it('gives the same events, usage and no counting for every 2-piece split and every piece size (LF framing)', async () => {
    for (const clientWantsUsage of [false, true]) {
      const expected = parseSse(clientWantsUsage ? body : contentEvents + doneEvent);
      expect(expected).toHaveLength(clientWantsUsage ? 12 : 11);
      for (const { label, pieces } of deliveries(bytes)) {
        const result = await run(pieces, { clientWantsUsage });
        expect(parseSse(result.text), label).toEqual(expected);
        expect(result.text, label).toMatch(/\}\n\n+data: \[DONE\]\n\n$/);
        expect(result.outcome.usage).toEqual(upstreamUsage);
        expect(result.outcome.isUsageCounted).toBe(false);
        expect(result.promptCalls).toBe(0);
      }
    }
  });

  it('gives the same events and usage for every split with CRLF line endings', async () => {
    const crlf = realisticBody('\r\n');
    const crlfBytes = Buffer.from(crlf.body);
    // Plain runs keep the upstream's CRLF framing; handled lines (usage) and the closing [DONE] are LF.
    const whole = await run([crlfBytes], { clientWantsUsage: true });
    expect(whole.text).toBe(crlf.contentEvents + usageEvent + doneEvent);
    const wholeHidden = await run([crlfBytes], { clientWantsUsage: false });
    expect(wholeHidden.text).toBe(crlf.contentEvents + doneEvent);
    for (const clientWantsUsage of [false, true]) {
      const expected = parseSse(clientWantsUsage ? body : contentEvents + doneEvent);
      for (const { label, pieces } of deliveries(crlfBytes)) {
        const result = await run(pieces, { clientWantsUsage });
        expect(parseSse(result.text), `${label}, clientWantsUsage=${clientWantsUsage}`).toEqual(expected);
        expect(result.outcome.usage).toEqual(upstreamUsage);
        expect(result.outcome.isUsageCounted).toBe(false);
        expect(result.promptCalls).toBe(0);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 2. Multi-byte UTF-8
// ---------------------------------------------------------------------------------------------

describe('stream driver: multi-byte UTF-8 split across pieces', () => {
  const texts = ['你好，', '世界！', '😀🎉', ' emoji 👩‍👩‍👧‍👦 family', ' 𠜎𠜱 (CJK ext B)', ' Ünïcödé ', '中文测试。'];
  const original = texts.join('');
  const body = texts.map((text) => event(contentChunk('chatcmpl-u', text))).join('') + doneEvent;
  const bytes = Buffer.from(body);

  it('decodes to exactly the original text at every split offset and every piece size', async () => {
    const whole = await run([bytes]);
    expect(whole.text).toBe(body);
    expect(clientContent(whole.text)).toBe(original);
    const wholeTokens = whole.outcome.usage.completionTokens;
    expect(wholeTokens).toBe(referenceCount(texts));
    for (const { label, pieces } of deliveries(bytes)) {
      const result = await run(pieces);
      expect(result.text, label).not.toContain('\uFFFD');
      expect(clientContent(result.text), label).toBe(original);
      // The client's bytes are the upstream's (up to [DONE]: see the extra blank line bug above).
      expect(
        Buffer.from(result.text)
          .subarray(0, bytes.length - doneEvent.length)
          .equals(bytes.subarray(0, bytes.length - doneEvent.length)),
        label,
      ).toBe(true);
      expect(result.text, label).toMatch(/\}\n\n+data: \[DONE\]\n\n$/);
      expect(result.outcome.usage.completionTokens, label).toBe(wholeTokens);
    }
  });

  it('decodes correctly when every byte is its own piece and a line holds several split characters', async () => {
    const line = Buffer.from(event(contentChunk('x', '汉字😀é'.repeat(20))));
    const result = await run(piecesOf(line, 1));
    expect(result.text).toBe(line.toString('utf8') + doneEvent);
  });

  it('keeps a split character across an empty piece', async () => {
    const line = Buffer.from(event(contentChunk('x', '你好')));
    const at = line.indexOf(Buffer.from('你')) + 1; // inside 你
    const result = await run([line.subarray(0, at), Buffer.alloc(0), line.subarray(at)]);
    expect(result.text).toBe(line.toString('utf8') + doneEvent);
  });
});

// ---------------------------------------------------------------------------------------------
// 3. Comments, other fields, data without a space, removed events
// ---------------------------------------------------------------------------------------------

describe('stream driver: lines other than plain data lines', () => {
  // The usage chunk with its own spacing: forwarded unchanged means these bytes, not a re-serialization.
  const usageJson =
    '{"id": "chatcmpl-m", "object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}';
  const a = JSON.stringify(contentChunk('chatcmpl-m', 'A'));
  const b = JSON.stringify(contentChunk('chatcmpl-m', 'B'));
  const c = JSON.stringify(contentChunk('chatcmpl-m', 'C'));
  const body = [
    ': keep-alive\n\n',
    `event: message\nid: 1\ndata:${a}\n\n`,
    `data: ${b}\n\n`,
    ': ping\n\n',
    `id: 2\ndata: ${c}\n\n`,
    `data: ${usageJson}\n\n`,
    'data: [DONE]\n\n',
  ].join('');

  it('drops comments, event: and id: lines and [DONE], normalizes data: without a space, leaves no double blank lines', async () => {
    const hidden = await run([Buffer.from(body)], { clientWantsUsage: false });
    expect(hidden.text).toBe(`data: ${a}\n\ndata: ${b}\n\ndata: ${c}\n\n${doneEvent}`);
    expect(hidden.text).not.toMatch(/\n\n\n/);
    expect(hidden.outcome.usage).toEqual({ promptTokens: 7, completionTokens: 3, cachedTokens: 0 });
    expect(hidden.outcome.isUsageCounted).toBe(false);
  });

  it('forwards the usage chunk unchanged when the client asked for usage', async () => {
    const shown = await run([Buffer.from(body)], { clientWantsUsage: true });
    expect(shown.text).toBe(`data: ${a}\n\ndata: ${b}\n\ndata: ${c}\n\ndata: ${usageJson}\n\n${doneEvent}`);
    expect(shown.text).not.toMatch(/\n\n\n/);
    expect(shown.outcome.usage).toEqual({ promptTokens: 7, completionTokens: 3, cachedTokens: 0 });
  });

  it('gives the same events when these lines arrive split at every byte offset', async () => {
    const bytes = Buffer.from(body);
    for (const clientWantsUsage of [false, true]) {
      const expected = parseSse(
        clientWantsUsage
          ? `data: ${a}\n\ndata: ${b}\n\ndata: ${c}\n\ndata: ${usageJson}\n\n${doneEvent}`
          : `data: ${a}\n\ndata: ${b}\n\ndata: ${c}\n\n${doneEvent}`,
      );
      for (let offset = 1; offset < bytes.length; offset += 1) {
        const result = await run(cutAt(bytes, [offset]), { clientWantsUsage });
        expect(parseSse(result.text), `split at ${offset}`).toEqual(expected);
        expect(result.text).not.toMatch(/^(?::|id:|event:)/m);
        expect(result.outcome.usage).toEqual({ promptTokens: 7, completionTokens: 3, cachedTokens: 0 });
      }
    }
  });

  it('passes "usage": null chunks (OpenAI with include_usage) unchanged and counts them when no usage comes', async () => {
    const chunks = ['one ', 'two ', 'three'].map(
      (text) => `{"id":"chatcmpl-n","choices":[{"index":0,"delta":{"content":"${text}"}}],"usage":null}`,
    );
    const input = `${chunks.map((chunk) => `data: ${chunk}\n\n`).join('')}data: [DONE]\n\n`;
    const result = await run([Buffer.from(input)]);
    expect(result.text).toBe(input);
    expect(result.outcome.isUsageCounted).toBe(true);
    expect(result.outcome.usage).toEqual({ promptTokens, completionTokens: referenceCount(['one ', 'two ', 'three']), cachedTokens: 0 });
  });

  it('counts data: lines without a space when no usage comes', async () => {
    const input = `data:${JSON.stringify(contentChunk('x', 'alpha '))}\n\ndata: ${JSON.stringify(contentChunk('x', 'beta'))}\n\n`;
    const result = await run([Buffer.from(input)]);
    expect(result.text).toBe(
      `data: ${JSON.stringify(contentChunk('x', 'alpha '))}\n\ndata: ${JSON.stringify(contentChunk('x', 'beta'))}\n\n${doneEvent}`,
    );
    expect(result.outcome.usage.completionTokens).toBe(referenceCount(['alpha ', 'beta']));
  });

  it('handles a last line without a trailing newline at end()', async () => {
    const last = JSON.stringify(contentChunk('x', 'tail'));
    const result = await run([Buffer.from(`data: ${last}`)]);
    expect(result.text).toBe(`data: ${last}\n\n${doneEvent}`);
    expect(result.outcome.usage.completionTokens).toBe(referenceCount(['tail']));
  });

  it('keeps events apart when an id:/event: line or a comment follows the data line of an event', async () => {
    const input = `data: ${a}\nid: 5\n\ndata: ${b}\n\n`;
    const result = await run([Buffer.from(input)]);
    expect(result.text).toBe(`data: ${a}\n\ndata: ${b}\n\n${doneEvent}`);
  });
});

// ---------------------------------------------------------------------------------------------
// 4. No upstream usage: counting and the synthesized usage chunk
// ---------------------------------------------------------------------------------------------

describe('stream driver: no usage from the upstream', () => {
  const texts = ['The', ' quick', ' brown', ' fox', ' jumps.'];
  const chunks = texts.map((text, i) => contentChunk(i === texts.length - 1 ? 'chatcmpl-last' : 'chatcmpl-first', text));
  const contentEvents = chunks.map((chunk) => event(chunk)).join('');
  const body = contentEvents + doneEvent;

  function synthesized(text: string): { line: string; chunk: Json } {
    const lines = text.split('\n\n');
    const line = lines.at(-3)!;
    return { line, chunk: dataOf(line) };
  }

  it('counts the streamed text and the prompt (once) without writing a usage chunk', async () => {
    const result = await run([Buffer.from(body)], { clientWantsUsage: false });
    expect(result.text).toBe(body);
    expect(result.outcome.isUsageCounted).toBe(true);
    expect(result.outcome.usage).toEqual({ promptTokens, completionTokens: referenceCount(texts), cachedTokens: 0 });
    expect(result.outcome.usage.completionTokens).toBeGreaterThan(0);
    expect(result.promptCalls).toBe(1);
  });

  it("synthesizes the usage chunk with the last chunk's id right before [DONE]", async () => {
    const result = await run([Buffer.from(body)], { clientWantsUsage: true });
    const completionTokens = referenceCount(texts);
    const { chunk } = synthesized(result.text);
    const expectedChunk = {
      id: 'chatcmpl-last',
      object: 'chat.completion.chunk',
      created: chunk.created,
      model: 'gpt-4o-mini',
      choices: [],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    };
    expect(typeof chunk.created).toBe('number');
    expect(Math.abs((chunk.created as number) - Date.now() / 1000)).toBeLessThan(5);
    expect(result.text).toBe(`${contentEvents}data: ${JSON.stringify(expectedChunk)}\n\n${doneEvent}`);
    expect(result.outcome.isUsageCounted).toBe(true);
    expect(result.outcome.usage).toEqual({ promptTokens, completionTokens, cachedTokens: 0 });
    expect(result.promptCalls).toBe(1);
  });

  it('takes the id from the last handled chunk when the last line went through handleLine', async () => {
    const input = `${event(contentChunk('chatcmpl-a', 'x'))}data:${JSON.stringify(contentChunk('chatcmpl-b', 'y'))}\n\n`;
    const result = await run([Buffer.from(input)], { clientWantsUsage: true });
    expect(synthesized(result.text).chunk.id).toBe('chatcmpl-b');
  });

  it("takes the last chunk's id when only the closing blank line comes in the last piece", async () => {
    const bytes = Buffer.from(body);
    const result = await run(cutAt(bytes, [bytes.length - 1]), { clientWantsUsage: true });
    expect(synthesized(result.text).chunk.id).toBe('chatcmpl-last');
  });

  it('gives the same counted usage and events for every splitting', async () => {
    const bytes = Buffer.from(body);
    const completionTokens = referenceCount(texts);
    for (const { label, pieces } of deliveries(bytes)) {
      const result = await run(pieces, { clientWantsUsage: true });
      const events = parseSse(result.text);
      expect(
        events.slice(0, texts.length).map((e) => e.data),
        label,
      ).toEqual(chunks.map((chunk) => JSON.stringify(chunk)));
      expect(events.at(-1)!.data).toBe('[DONE]');
      expect((JSON.parse(events.at(-2)!.data) as { usage: unknown }).usage, label).toEqual({
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      });
      expect(result.outcome.usage, label).toEqual({ promptTokens, completionTokens, cachedTokens: 0 });
      expect(result.promptCalls).toBe(1);
    }
  });

  it('counts more than 64 KB of streamed text (the deferred limit) exactly as a small-piece delivery does', async () => {
    const many = Array.from({ length: 2500 }, (_, i) => `word${i} lorem ipsum dolor sit ${i % 7 === 0 ? '你好 ' : ''}`);
    const manyBody = many.map((text) => event(contentChunk('chatcmpl-big', text))).join('') + doneEvent;
    const bytes = Buffer.from(manyBody);
    expect(bytes.length).toBeGreaterThan(4 * 64 * 1024);
    expect(many.join('').length).toBeGreaterThan(64 * 1024);
    const expected = referenceCount(many);
    expect(expected).toBeGreaterThan(2500 * 3);
    const whole = await run([bytes], { clientWantsUsage: true });
    const bigPieces = await run(piecesOf(bytes, 16 * 1024), { clientWantsUsage: true });
    const smallPieces = await run(piecesOf(bytes, 7), { clientWantsUsage: true });
    for (const result of [whole, bigPieces, smallPieces]) {
      expect(result.outcome.isUsageCounted).toBe(true);
      expect(result.outcome.usage).toEqual({ promptTokens, completionTokens: expected, cachedTokens: 0 });
      expect(result.promptCalls).toBe(1);
      expect(result.text.startsWith(manyBody.slice(0, -doneEvent.length))).toBe(true);
      expect(synthesized(result.text).chunk).toMatchObject({
        id: 'chatcmpl-big',
        usage: { prompt_tokens: promptTokens, completion_tokens: expected },
      });
    }
  });

  it('does not count (nor call the prompt tokenizer) once upstream usage arrived, even after lots of text', async () => {
    const many = Array.from({ length: 1500 }, (_, i) => `token${i} and more text `);
    const input = many.map((text) => event(contentChunk('c', text))).join('') + event(usageOnlyChunk('c')) + doneEvent;
    const result = await run(piecesOf(Buffer.from(input), 1000));
    expect(result.outcome.usage).toEqual(upstreamUsage);
    expect(result.outcome.isUsageCounted).toBe(false);
    expect(result.promptCalls).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// 5. Moonshot-style usage in choices[0].usage
// ---------------------------------------------------------------------------------------------

describe('stream driver: usage in choices[0].usage (Moonshot)', () => {
  const last = {
    id: 'chatcmpl-moon',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'moonshot-v1-8k',
    choices: [{ index: 0, delta: {}, finish_reason: 'stop', usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } }],
  };
  const contentEvents = event(contentChunk('chatcmpl-moon', 'Hi')) + event(contentChunk('chatcmpl-moon', ' there')) + event(last);
  const body = contentEvents + doneEvent;

  it('takes the usage from the choice with isUsageInChoice and forwards the chunk', async () => {
    const bytes = Buffer.from(body);
    for (const { label, pieces } of deliveries(bytes)) {
      const result = await run(pieces, { transform: createOpenAiChunkTransform({ isUsageInChoice: true }), clientWantsUsage: false });
      expect(result.outcome.usage, label).toEqual({ promptTokens: 20, completionTokens: 5, cachedTokens: 0 });
      expect(result.outcome.isUsageCounted).toBe(false);
      expect(result.promptCalls).toBe(0);
      expect(parseSse(result.text), label).toEqual(parseSse(body));
    }
    const whole = await run([bytes], { transform: createOpenAiChunkTransform({ isUsageInChoice: true }), clientWantsUsage: false });
    expect(whole.text).toBe(body);
  });

  it('adds a usage-only chunk with that usage when the client asked for usage', async () => {
    const result = await run([Buffer.from(body)], {
      transform: createOpenAiChunkTransform({ isUsageInChoice: true }),
      clientWantsUsage: true,
    });
    const lines = result.text.split('\n\n');
    const usageChunk = dataOf(lines.at(-3)!);
    expect(result.text).toBe(
      `${contentEvents}data: ${JSON.stringify({
        id: 'chatcmpl-moon',
        object: 'chat.completion.chunk',
        created: usageChunk.created,
        model: 'gpt-4o-mini',
        choices: [],
        usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
      })}\n\n${doneEvent}`,
    );
  });

  it('ignores choices[0].usage without isUsageInChoice (counts instead)', async () => {
    const result = await run([Buffer.from(body)], { transform: createOpenAiChunkTransform({}) });
    expect(result.outcome.isUsageCounted).toBe(true);
    expect(result.outcome.usage).toEqual({ promptTokens, completionTokens: referenceCount(['Hi', ' there']), cachedTokens: 0 });
    expect(result.promptCalls).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------
// 6. Backpressure
// ---------------------------------------------------------------------------------------------

describe('stream driver: backpressure', () => {
  const one = Buffer.from(event(contentChunk('c', 'one')));
  const two = Buffer.from(event(contentChunk('c', 'two')));

  it('returns false while the client is full and resumes exactly once on drain', async () => {
    const h = harness();
    h.out.writeResult = false;
    expect(h.relay.data(one)).toBe(false);
    expect(h.relay.data(two)).toBe(false);
    expect(h.out.listenerCount('drain')).toBe(1);
    // A piece without a complete line writes nothing: no backpressure to report.
    expect(h.relay.data(Buffer.from('data: {"id":'))).toBe(true);
    expect(h.resumes()).toBe(0);
    h.out.writeResult = true;
    h.out.drain();
    expect(h.resumes()).toBe(1);
    h.out.drain();
    expect(h.resumes()).toBe(1);
    expect(h.out.listenerCount('drain')).toBe(0);
    expect(h.relay.data(Buffer.from('"c","choices":[]}\n\n'))).toBe(true);
    h.relay.end();
    await h.relay.done;
    expect(h.out.text).toBe(`${one.toString()}${two.toString()}data: {"id":"c","choices":[]}\n\n${doneEvent}`);
    expect(h.resumes()).toBe(1);
  });

  it('waits for a new drain after a second full buffer', () => {
    const h = harness();
    h.out.writeResult = false;
    expect(h.relay.data(one)).toBe(false);
    h.out.drain();
    expect(h.resumes()).toBe(1);
    expect(h.relay.data(two)).toBe(false);
    expect(h.resumes()).toBe(1);
    h.out.drain();
    expect(h.resumes()).toBe(2);
  });

  it('removes its drain listener when the stream finishes while waiting', async () => {
    const h = harness();
    h.out.writeResult = false;
    expect(h.relay.data(one)).toBe(false);
    h.relay.end();
    await h.relay.done;
    expect(h.out.listenerCount('drain')).toBe(0);
    expect(h.out.listenerCount('close')).toBe(0);
    h.out.drain();
    expect(h.resumes()).toBe(0);
  });

  it("never corks the response: corked, Node 22+ hides the client's backpressure and reorders the end", async () => {
    const h = harness();
    h.relay.data(one);
    h.relay.data(two);
    h.relay.end();
    await h.relay.done;
    expect(h.out.corks).toBe(0);
    expect(h.out.uncorks).toBe(0);
    expect(h.out.text).toContain('[DONE]');
  });

  it('pipeStream with a real slow Writable (highWaterMark 16) waits for drain and delivers everything', async () => {
    const { body, contentEvents } = realisticBody();
    let written = '';
    let writes = 0;
    const out = new Writable({
      highWaterMark: 16,
      write(chunk, _encoding, callback) {
        written += String(chunk);
        writes += 1;
        setImmediate(callback);
      },
    });
    let pulled = 0;
    async function* upstream(): AsyncGenerator<Buffer> {
      for (const piece of piecesOf(Buffer.from(body), 100)) {
        pulled += 1;
        yield piece;
      }
    }
    const outcome = await pipeStream(pullOptions(upstream(), out as unknown as ServerResponse, 0));
    await new Promise<void>((resolve) => (out.writableFinished ? resolve() : out.once('finish', () => resolve())));
    expect(pulled).toBe(Math.ceil(body.length / 100));
    expect(writes).toBeGreaterThan(1);
    expect(written).toBe(contentEvents + doneEvent);
    expect(outcome.usage).toEqual(upstreamUsage);
  });

  it('pipeStream bills and frames an error thrown by the upstream iterable', async () => {
    let written = '';
    const out = new Writable({
      write(chunk, _encoding, callback) {
        written += String(chunk);
        callback();
      },
    });
    async function* upstream(): AsyncGenerator<Buffer> {
      yield Buffer.from(event(contentChunk('c', 'partial answer')));
      throw new Error('socket hang up');
    }
    const outcome = await pipeStream(pullOptions(upstream(), out as unknown as ServerResponse, 3));
    await new Promise<void>((resolve) => (out.writableFinished ? resolve() : out.once('finish', () => resolve())));
    expect(written).toBe(
      event(contentChunk('c', 'partial answer')) + openAiErrorFrame('The upstream stream broke off', 'upstream_error') + doneEvent,
    );
    expect(outcome.usage).toEqual({ promptTokens: 3, completionTokens: referenceCount(['partial answer']), cachedTokens: 0 });
    expect(outcome.isUsageCounted).toBe(true);
    // Readable.from is accepted too (the fast-paths tests' style).
    const again = await pipeStream(
      pullOptions(Readable.from([Buffer.from(doneEvent)]), new Writable({ write: (_c, _e, cb) => cb() }) as unknown as ServerResponse, 3),
    );
    expect(again.usage).toEqual({ promptTokens: 3, completionTokens: 0, cachedTokens: 0 });
  });
});

// ---------------------------------------------------------------------------------------------
// 7. Client gone
// ---------------------------------------------------------------------------------------------

describe('stream driver: the client goes away', () => {
  it('aborts the upstream with "client closed" and reports isClientGone, billing what was produced', async () => {
    const h = harness();
    h.relay.data(Buffer.from(event(contentChunk('c', 'produced before the close'))));
    h.out.clientClose();
    expect(h.aborts).toEqual(['client closed']);
    // The upstream call is aborted, so the sink gets an error.
    h.relay.error(new Error('aborted'));
    const outcome = await h.relay.done;
    expect(outcome.isClientGone).toBe(true);
    expect(outcome.isIdleTimeout).toBe(false);
    expect(outcome.isUsageCounted).toBe(true);
    expect(outcome.usage).toEqual({ promptTokens, completionTokens: referenceCount(['produced before the close']), cachedTokens: 0 });
    // Nothing is written to a destroyed response.
    expect(h.out.endCalls).toBe(0);
    expect(h.out.text).toBe(event(contentChunk('c', 'produced before the close')));
    expect(h.aborts).toEqual(['client closed']);
  });

  it('writes nothing when data arrives after the client closed', async () => {
    const h = harness();
    h.out.clientClose();
    expect(h.relay.data(Buffer.from(event(contentChunk('c', 'late'))))).toBe(true);
    expect(h.out.writes).toEqual([]);
    h.relay.end();
    const outcome = await h.relay.done;
    expect(outcome.isClientGone).toBe(true);
    expect(h.out.endCalls).toBe(0);
  });

  it('does not abort on the close that follows a finished response', async () => {
    const h = harness();
    h.relay.data(Buffer.from(doneEvent));
    h.relay.end();
    const outcome = await h.relay.done;
    h.out.emit('close');
    expect(h.aborts).toEqual([]);
    expect(outcome.isClientGone).toBe(false);
    expect(h.out.text).toBe(doneEvent);
  });
});

// ---------------------------------------------------------------------------------------------
// 8. Idle timeout and pings
// ---------------------------------------------------------------------------------------------

describe('stream driver: idle timeout', () => {
  const piece = (i: number) => Buffer.from(event(contentChunk('c', `p${i} `)));

  it('never aborts while pieces come every 30 ms, aborts once after a longer silence, then ends with the timeout frame', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const h = harness({ idleTimeoutMs: 100 });
    const texts: string[] = [];
    for (let i = 0; i < 30; i += 1) {
      vi.advanceTimersByTime(30);
      h.relay.data(piece(i));
      texts.push(`p${i} `);
    }
    expect(h.aborts).toEqual([]);
    vi.advanceTimersByTime(99);
    expect(h.aborts).toEqual([]);
    // Idle timers are checked every eighth of their timeout (idle-timer.ts): due at 100, fired by 112.
    vi.advanceTimersByTime(12);
    expect(h.aborts).toEqual(['stream idle timeout']);
    vi.advanceTimersByTime(1000);
    expect(h.aborts).toEqual(['stream idle timeout']);
    h.relay.error(new Error('aborted'));
    const outcome = await h.relay.done;
    expect(outcome.isIdleTimeout).toBe(true);
    expect(outcome.isClientGone).toBe(false);
    expect(outcome.usage).toEqual({ promptTokens, completionTokens: referenceCount(texts), cachedTokens: 0 });
    const expectedFrame = openAiErrorFrame('The upstream stream timed out', 'stream_idle_timeout');
    expect(h.out.text).toBe(texts.map((_, i) => piece(i).toString()).join('') + expectedFrame + doneEvent);
    expect(h.out.text.endsWith(`${expectedFrame}${doneEvent}`)).toBe(true);
    expect((dataOf(expectedFrame.trim()).error as Json).code).toBe('stream_idle_timeout');
  });

  it('counts the silence from the start when nothing ever arrives', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const h = harness({ idleTimeoutMs: 100 });
    vi.advanceTimersByTime(99);
    expect(h.aborts).toEqual([]);
    vi.advanceTimersByTime(12);
    expect(h.aborts).toEqual(['stream idle timeout']);
    h.relay.end();
  });

  it('does not fire after the stream finished', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const h = harness({ idleTimeoutMs: 100 });
    h.relay.data(piece(0));
    h.relay.end();
    await h.relay.done;
    vi.advanceTimersByTime(10_000);
    expect(h.aborts).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('works with real timers (pieces every 30 ms, idle 200 ms)', async () => {
    const h = harness({ idleTimeoutMs: 200 });
    for (let i = 0; i < 10; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      h.relay.data(piece(i));
    }
    expect(h.aborts).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(h.aborts).toEqual(['stream idle timeout']);
    h.relay.error(new Error('aborted'));
    const outcome = await h.relay.done;
    expect(outcome.isIdleTimeout).toBe(true);
    expect(h.out.text.endsWith(openAiErrorFrame('The upstream stream timed out', 'stream_idle_timeout') + doneEvent)).toBe(true);
  });

  it('writes a ping comment every pingIntervalMs and stops at the end', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const h = harness({ idleTimeoutMs: 10_000, pingIntervalMs: 50 });
    vi.advanceTimersByTime(120);
    h.relay.data(piece(0));
    vi.advanceTimersByTime(30);
    h.relay.end();
    await h.relay.done;
    vi.advanceTimersByTime(500);
    expect(h.out.text).toBe(`: PING\n\n: PING\n\n${piece(0).toString()}: PING\n\n${doneEvent}`);
  });
});

// ---------------------------------------------------------------------------------------------
// 9. Upstream error mid-stream, and calls after the finish
// ---------------------------------------------------------------------------------------------

describe('stream driver: the upstream breaks mid-stream', () => {
  const texts = ['Partial', ' answer', ' so far'];
  const produced = texts.map((text) => event(contentChunk('chatcmpl-err', text))).join('');
  const hangUp = openAiErrorFrame('The upstream stream broke off', 'upstream_error');

  it('bills what was produced and ends with an OpenAI error frame then [DONE]', async () => {
    const h = harness();
    h.relay.data(Buffer.from(produced + 'data: {"id":"chatcmpl-err","choi'));
    h.relay.error(new Error('socket hang up'));
    const outcome = await h.relay.done;
    expect(h.out.text).toBe(produced + hangUp + doneEvent);
    expect(outcome.isUsageCounted).toBe(true);
    expect(outcome.usage).toEqual({ promptTokens, completionTokens: referenceCount(texts), cachedTokens: 0 });
    expect(outcome.isClientGone).toBe(false);
    expect(outcome.isIdleTimeout).toBe(false);
    expect(h.promptCalls()).toBe(1);
    expect(h.out.endCalls).toBe(1);
  });

  it('writes the synthesized usage chunk before the error frame when the client asked for usage', async () => {
    const h = harness({ clientWantsUsage: true });
    h.relay.data(Buffer.from(produced));
    h.relay.error(new Error('socket hang up'));
    await h.relay.done;
    const completionTokens = referenceCount(texts);
    const parts = h.out.text.split('\n\n');
    const usageChunk = dataOf(parts.at(-4)!);
    expect(h.out.text).toBe(
      `${produced}data: ${JSON.stringify({
        id: 'chatcmpl-err',
        object: 'chat.completion.chunk',
        created: usageChunk.created,
        model: 'gpt-4o-mini',
        choices: [],
        usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      })}\n\n${hangUp}${doneEvent}`,
    );
  });

  it('keeps the upstream usage when it came before the break', async () => {
    const h = harness();
    h.relay.data(Buffer.from(produced + event(usageOnlyChunk('chatcmpl-err'))));
    h.relay.error(new Error('socket hang up'));
    const outcome = await h.relay.done;
    expect(outcome.usage).toEqual(upstreamUsage);
    expect(outcome.isUsageCounted).toBe(false);
    expect(h.promptCalls()).toBe(0);
    expect(h.out.text).toBe(produced + hangUp + doneEvent);
  });

  it('frames a RelayError with its own status, code and message', async () => {
    const { RelayError } = await import('../../src/relay/errors.js');
    const h = harness();
    h.relay.error(new RelayError(429, 'rate_limited', 'slow down'));
    await h.relay.done;
    expect(h.out.text).toBe(openAiErrorFrame('slow down', 'rate_limited', 'rate_limit_error') + doneEvent);
  });

  it('ignores data(), end() and error() after the finish', async () => {
    const h = harness();
    h.relay.data(Buffer.from(produced));
    h.relay.error(new Error('socket hang up'));
    const outcome = await h.relay.done;
    const before = h.out.text;
    expect(h.relay.data(Buffer.from(event(contentChunk('chatcmpl-err', 'late'))))).toBe(true);
    h.relay.end();
    h.relay.error(new Error('again'));
    expect(h.out.text).toBe(before);
    expect(h.out.endCalls).toBe(1);
    expect(h.promptCalls()).toBe(1);
    expect(await h.relay.done).toBe(outcome);
  });

  it('records the first-response time from the first passed chunk', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const h = harness({ startedAt: Date.now() - 40 });
    vi.advanceTimersByTime(25);
    h.relay.data(Buffer.from(': comment only\n\n'));
    vi.advanceTimersByTime(10);
    h.relay.data(Buffer.from(produced));
    vi.advanceTimersByTime(100);
    h.relay.end();
    expect((await h.relay.done).frtMs).toBe(75);
  });
});

// ---------------------------------------------------------------------------------------------
// 10. Transforms that change chunks
// ---------------------------------------------------------------------------------------------

describe('stream driver: a transform that changes chunks', () => {
  /** Uppercases delta.content; usage as the OpenAI transform reads it. */
  function upperTransform(): ChunkTransform & { seen: number } {
    const reader = createOpenAiChunkTransform({});
    const transform = {
      seen: 0,
      onChunk(chunk: Record<string, unknown>): ChunkVerdict {
        transform.seen += 1;
        const verdict = reader.onChunk(chunk);
        for (const choice of (chunk.choices ?? []) as Array<{ delta?: { content?: unknown } }>) {
          if (typeof choice.delta?.content === 'string') choice.delta.content = choice.delta.content.toUpperCase();
        }
        return { ...verdict, isModified: true };
      },
    };
    return transform;
  }

  const spaced = (id: string, content: string) => `{"id": "${id}", "choices": [{"index": 0, "delta": {"content": "${content}"}}]}`;
  const serialized = (id: string, content: string) => `{"id":"${id}","choices":[{"index":0,"delta":{"content":"${content}"}}]}`;
  const usageJson = '{"id": "m", "choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": 2, "total_tokens": 6}}';
  const body = `: hi\n\nevent: message\ndata: ${spaced('m', 'hello')}\n\ndata:${spaced('m', ' world')}\r\n\r\ndata: ${usageJson}\n\ndata: [DONE]\n\n`;

  it('re-serializes every chunk line by line and hides the usage chunk', async () => {
    const transform = upperTransform();
    const result = await run([Buffer.from(body)], { transform });
    expect(result.text).toBe(`data: ${serialized('m', 'HELLO')}\n\ndata: ${serialized('m', ' WORLD')}\n\n${doneEvent}`);
    expect(result.outcome.usage).toEqual({ promptTokens: 4, completionTokens: 2, cachedTokens: 0 });
    expect(result.outcome.isUsageCounted).toBe(false);
    expect(transform.seen).toBe(3);
  });

  it('forwards the (re-serialized) usage chunk when the client asked for it', async () => {
    const result = await run([Buffer.from(body)], { transform: upperTransform(), clientWantsUsage: true });
    expect(result.text).toBe(
      `data: ${serialized('m', 'HELLO')}\n\ndata: ${serialized('m', ' WORLD')}\n\ndata: ${JSON.stringify(JSON.parse(usageJson))}\n\n${doneEvent}`,
    );
  });

  it('gives byte-identical output for every splitting', async () => {
    const bytes = Buffer.from(body);
    const expected = `data: ${serialized('m', 'HELLO')}\n\ndata: ${serialized('m', ' WORLD')}\n\n${doneEvent}`;
    for (const { label, pieces } of deliveries(bytes)) {
      const result = await run(pieces, { transform: upperTransform() });
      expect(result.text, label).toBe(expected);
      expect(result.outcome.usage).toEqual({ promptTokens: 4, completionTokens: 2, cachedTokens: 0 });
    }
  });

  it('counts the text as it passes when the upstream sends no usage, and synthesizes usage with the last id', async () => {
    const input = `data: ${spaced('m1', 'hello there ')}\n\ndata: ${spaced('m2', 'general kenobi')}\n\n`;
    const result = await run(piecesOf(Buffer.from(input), 5), { transform: upperTransform(), clientWantsUsage: true });
    const completionTokens = referenceCount(['hello there ', 'general kenobi']);
    const parts = result.text.split('\n\n');
    const usageChunk = dataOf(parts.at(-3)!);
    expect(result.text).toBe(
      `data: ${serialized('m1', 'HELLO THERE ')}\n\ndata: ${serialized('m2', 'GENERAL KENOBI')}\n\ndata: ${JSON.stringify({
        id: 'm2',
        object: 'chat.completion.chunk',
        created: usageChunk.created,
        model: 'gpt-4o-mini',
        choices: [],
        usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      })}\n\n${doneEvent}`,
    );
    expect(result.outcome).toMatchObject({ isUsageCounted: true, usage: { promptTokens, completionTokens, cachedTokens: 0 } });
  });

  it('passes a data line that is not JSON as is', async () => {
    const result = await run([Buffer.from('data: not json\n\n')], { transform: upperTransform() });
    expect(result.text).toBe(`data: not json\n\n${doneEvent}`);
  });
});

describe('stream driver with a deferred head (start): failing before the first byte', () => {
  function gated(overrides: Partial<Omit<StreamOptions, 'out' | 'abort' | 'countPromptTokens'>> = {}) {
    const calls: string[] = [];
    const h = harness({ start: () => calls.push('start'), cancel: () => calls.push('cancel'), ...overrides });
    return { ...h, calls };
  }
  const errorLine = (code: unknown) => `data: ${JSON.stringify({ error: { message: 'Provider returned error', code } })}\n\n`;

  it('writes the head right before the first event, not for comments or blank lines', async () => {
    const h = gated();
    h.relay.data(Buffer.from(': OPENROUTER PROCESSING\n\n\n'));
    expect(h.calls).toEqual([]);
    expect(h.out.text).toBe('');
    h.relay.data(Buffer.from(event(contentChunk('a', 'Hi'))));
    expect(h.calls).toEqual(['start']);
    h.relay.end();
    const outcome = await h.relay.done;
    expect(outcome.isStarted).toBe(true);
    expect(outcome.error).toBeNull();
    expect(h.out.text).toBe(event(contentChunk('a', 'Hi')) + doneEvent);
  });

  it('an error event first: the upstream answer is cancelled, nothing is written or billed, the error is an UpstreamError', async () => {
    const h = gated();
    h.relay.data(Buffer.from(`: keep-alive\n\n${errorLine(429)}`));
    const outcome = await h.relay.done;
    expect(h.calls).toEqual(['cancel']);
    expect(h.out.text).toBe('');
    expect(h.out.endCalls).toBe(0);
    expect(outcome.isStarted).toBe(false);
    expect(outcome.error).toBeInstanceOf(UpstreamError);
    expect((outcome.error as UpstreamError).upstreamStatus).toBe(429);
    expect((outcome.error as UpstreamError).retryable).toBe(true);
    expect((outcome.error as Error).message).toBe('Provider returned error');
    expect(outcome.usage).toEqual({ promptTokens: 0, completionTokens: 0, cachedTokens: 0 });
    expect(h.promptCalls()).toBe(0);
    // Anything after the decision is ignored.
    expect(h.relay.data(Buffer.from(event(contentChunk('a', 'late'))))).toBe(true);
    expect(h.out.text).toBe('');
  });

  it('an error event after the first content is passed on classified and redacted (no failover once bytes went out)', async () => {
    const h = gated();
    h.relay.data(Buffer.from(event(contentChunk('a', 'Par')) + errorLine(502)));
    h.relay.end();
    const outcome = await h.relay.done;
    expect(outcome.isStarted).toBe(true);
    expect(h.calls).toEqual(['start']);
    const redacted = `data: ${JSON.stringify({ error: { message: 'The upstream service failed. Please try again later or contact the administrator', type: 'upstream_error', param: null, code: 'upstream_error' } })}\n\n`;
    expect(h.out.text).toBe(event(contentChunk('a', 'Par')) + redacted + doneEvent);
  });

  it('a chunk with choices and an error field is content, not a failure', async () => {
    const h = gated();
    const chunk = contentChunk('a', 'ok', { error: { message: 'soft' } });
    h.relay.data(Buffer.from(event(chunk)));
    h.relay.end();
    expect((await h.relay.done).isStarted).toBe(true);
    expect(h.out.text).toBe(event(chunk) + doneEvent);
  });

  it('OpenRouter\'s error chunk (choices with finish_reason "error" and no content) first is a failure too', async () => {
    const h = gated();
    const chunk = {
      id: 'gen-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'x',
      provider: 'openai',
      error: { code: 'server_error', message: 'Provider disconnected unexpectedly' },
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
    };
    h.relay.data(Buffer.from(event(chunk)));
    const outcome = await h.relay.done;
    expect(outcome.isStarted).toBe(false);
    expect(h.calls).toEqual(['cancel']);
    expect((outcome.error as UpstreamError).code).toBe('server_error');
    expect((outcome.error as UpstreamError).retryable).toBe(true);
    expect(h.out.text).toBe('');
  });

  it('the upstream breaking before any output: not started, not billed, the error returned', async () => {
    const h = gated();
    h.relay.data(Buffer.from(': processing\n\n'));
    h.relay.error(new Error('socket hang up'));
    const outcome = await h.relay.done;
    expect(outcome.isStarted).toBe(false);
    expect((outcome.error as Error).message).toBe('socket hang up');
    expect(h.out.text).toBe('');
    expect(h.promptCalls()).toBe(0);
  });

  it('an empty stream still gets a head and [DONE] (billed as counted)', async () => {
    const h = gated();
    h.relay.end();
    const outcome = await h.relay.done;
    expect(h.calls).toEqual(['start']);
    expect(outcome.isStarted).toBe(true);
    expect(h.out.text).toBe(doneEvent);
    expect(h.promptCalls()).toBe(1);
  });

  it('the client gone before the first byte: billed for the prompt as before, nothing written', async () => {
    const h = gated();
    h.out.clientClose();
    h.relay.error(new Error('aborted'));
    const outcome = await h.relay.done;
    expect(h.aborts).toEqual(['client closed']);
    expect(outcome.isClientGone).toBe(true);
    expect(outcome.isStarted).toBe(false);
    expect(outcome.usage.promptTokens).toBe(promptTokens);
    expect(h.out.text).toBe('');
  });

  it('an idle upstream before the first byte: the head and the timeout frame are written', async () => {
    vi.useFakeTimers();
    try {
      const h = gated({ idleTimeoutMs: 100 });
      vi.advanceTimersByTime(150);
      expect(h.aborts).toEqual(['stream idle timeout']);
      h.relay.error(new Error('aborted'));
      const outcome = await h.relay.done;
      expect(outcome.isIdleTimeout).toBe(true);
      expect(h.calls).toEqual(['start']);
      expect(h.out.text).toBe(openAiErrorFrame('The upstream stream timed out', 'stream_idle_timeout') + doneEvent);
    } finally {
      vi.useRealTimers();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Unchanged lines as the upstream's bytes
// ---------------------------------------------------------------------------------------------

describe('OpenAI pass-through: copied lines go out as bytes only when they are the same bytes', () => {
  it('an ASCII piece whose lines pass unchanged is written as a slice of the upstream piece', async () => {
    const { body, contentEvents } = realisticBody();
    const piece = Buffer.from(body);
    const result = await run([piece]);
    expect(result.text).toBe(contentEvents + doneEvent);
    const first = result.out.chunks[0]!;
    expect(Buffer.isBuffer(first)).toBe(true);
    expect((first as Buffer).buffer).toBe(piece.buffer);
    expect((first as Buffer).toString()).toBe(contentEvents);
    expect(result.outcome.usage).toEqual(upstreamUsage);
  });

  it('text beyond ASCII is written as text, unchanged', async () => {
    const body = event(contentChunk('c', '你好，世界 🌍')) + event(contentChunk('c', ' café')) + doneEvent;
    const result = await run([Buffer.from(body)]);
    expect(result.text).toBe(body);
    expect(result.out.chunks.every((chunk) => typeof chunk === 'string')).toBe(true);
    expect(clientContent(result.text)).toBe('你好，世界 🌍 café');
  });

  it('bytes that are not UTF-8 reach the client as U+FFFD, never raw', async () => {
    const before = Buffer.from('data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a');
    const after = Buffer.from('b"},"finish_reason":null}]}\n\n');
    const result = await run([Buffer.concat([before, Buffer.from([0xff]), after])]);
    expect(result.out.chunks.every((chunk) => typeof chunk === 'string')).toBe(true);
    expect(clientContent(result.text)).toBe('a\ufffdb');
    expect(Buffer.from(result.text).includes(Buffer.from([0xff]))).toBe(false);
  });

  it('an event of several data lines, and lines after it, pass byte for byte at every split', async () => {
    const multi = `data: ${JSON.stringify(contentChunk('c', 'one'))}\ndata: ${JSON.stringify(contentChunk('c', 'two'))}\n\n`;
    const body = Buffer.from(multi + event(contentChunk('c', 'three')) + ': comment\n\n' + event(contentChunk('c', 'four')) + doneEvent);
    const expected = multi + event(contentChunk('c', 'three')) + event(contentChunk('c', 'four')) + doneEvent;
    for (const { label, pieces } of deliveries(body)) expect((await run(pieces)).text, label).toBe(expected);
  });

  it('a piece that ends a line begun in the last one is written as text', async () => {
    const { body, contentEvents } = realisticBody();
    // The first piece ends 5 bytes into the second event: its first event goes out as bytes, the
    // rest (the carried start of a line and the next piece) as text.
    const cut = contentEvents.indexOf('\n\n') + 2 + 5;
    const result = await run(cutAt(Buffer.from(body), [cut]));
    expect(result.text).toBe(contentEvents + doneEvent);
    expect(result.out.chunks.slice(0, 2).map((chunk) => Buffer.isBuffer(chunk))).toEqual([true, false]);
  });
});
