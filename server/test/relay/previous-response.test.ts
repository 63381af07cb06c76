import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startMockClaude, type MockClaude } from '../helpers/mock-claude.js';
import { createRelayChannel, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { storageKinds } from '../helpers/test-storage.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { billedState, createSdkCaller } from './sdk-setup.js';

const claudeTurns = (body: any) =>
  body.messages.map((message: any) => ({
    role: message.role,
    text: typeof message.content === 'string' ? message.content : message.content.map((block: any) => block.text ?? block.type).join('|'),
  }));

/**
 * Responses `previous_response_id` on a converted (Claude) channel: the gateway keeps what it
 * answered, per user, in the database, so the next turn (on any instance) has the whole conversation.
 */
describe.each(storageKinds())('previous_response_id on converted channels (%s)', (kind) => {
  let first: TestServer;
  let second: TestServer;
  let claude: MockClaude;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let stranger: { userId: number; tokenId: number; apiKey: string };
  let channelId: number;

  beforeAll(async () => {
    first = await startTestServer({ kind });
    second = await startTestServer({ kind, database: first.database });
    claude = await startMockClaude();
    await setOption(first.ctx, 'ModelRatio', JSON.stringify({ 'claude-chain': 1 }));
    caller = await createSdkCaller(first.ctx);
    stranger = await createSdkCaller(first.ctx);
    channelId = await createRelayChannel(first.ctx, { type: 14, key: 'sk-ant-chain', baseURL: claude.url, models: ['claude-chain'] });
    await setOption(second.ctx, 'ModelRatio', JSON.stringify({ 'claude-chain': 1 }));
    await second.relay.channels.rebuild();
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await claude?.close();
  });

  const client = (server: TestServer, apiKey = caller.apiKey) => new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });

  it('the second turn, on the other instance, sends the whole conversation upstream; the third chains on', async () => {
    const one = await client(first).responses.create({ model: 'claude-chain', instructions: 'Be brief.', input: 'My name is Ada.' });
    expect(one.output_text).toBe('Hello from Claude.');
    const two = await client(second).responses.create({ model: 'claude-chain', previous_response_id: one.id, input: 'What is my name?' });
    expect(two.id).not.toBe(one.id);
    expect(claudeTurns(claude.requests.at(-1)!.body)).toEqual([
      { role: 'user', text: 'My name is Ada.' },
      { role: 'assistant', text: 'Hello from Claude.' },
      { role: 'user', text: 'What is my name?' },
    ]);
    // Instructions are not carried over (as OpenAI does): only this request's.
    expect(claude.requests.at(-1)!.body.system).toBeUndefined();
    await client(first).responses.create({ model: 'claude-chain', previous_response_id: two.id, input: 'Thanks.' });
    expect(claudeTurns(claude.requests.at(-1)!.body).map((turn: { text: string }) => turn.text)).toEqual([
      'My name is Ada.',
      'Hello from Claude.',
      'What is my name?',
      'Hello from Claude.',
      'Thanks.',
    ]);
  });

  it('a streamed response is continued at once (the next request waits for it to be kept), and a tool call continues with its output', async () => {
    const stream = await client(first).responses.create({ model: 'claude-chain', input: 'Stream to me.', stream: true });
    let id = '';
    for await (const event of stream) if (event.type === 'response.completed') id = event.response.id;
    expect(id).toMatch(/^resp_/);
    await client(second).responses.create({ model: 'claude-chain', previous_response_id: id, input: 'Again.' });
    expect(claudeTurns(claude.requests.at(-1)!.body).map((turn: { text: string }) => turn.text)).toEqual([
      'Stream to me.',
      'Hello from Claude.',
      'Again.',
    ]);

    const tools = [
      {
        type: 'function' as const,
        name: 'lookup',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        strict: false,
      },
    ];
    const call = await client(first).responses.create({ model: 'claude-chain', input: 'Find Ada.', tools, tool_choice: 'required' });
    const fc = call.output.find((item) => item.type === 'function_call')!;
    expect(fc).toMatchObject({ name: 'lookup', arguments: '{"q":"Ada"}' });
    await client(second).responses.create({
      model: 'claude-chain',
      previous_response_id: call.id,
      tools,
      input: [{ type: 'function_call_output', call_id: fc.call_id, output: 'Ada is 42' }],
    });
    const sent = claude.requests.at(-1)!.body;
    expect(sent.messages[1].content[0]).toMatchObject({ type: 'tool_use', id: fc.call_id, name: 'lookup', input: { q: 'Ada' } });
    expect(sent.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: fc.call_id, content: 'Ada is 42' });
  });

  it("an unknown id, another user's id, a response stored with store:false: the Responses API's 404, nothing sent upstream or billed", async () => {
    const mine = await client(first).responses.create({ model: 'claude-chain', input: 'Private.' });
    const unkept = await client(first).responses.create({ model: 'claude-chain', input: 'Do not keep.', store: false });
    await flushRelay(first.ctx);
    const before = claude.requests.length;
    const billedBefore = (await billedState(first.ctx, { ...stranger, channelId })).logs.length;
    for (const [apiKey, id] of [
      [caller.apiKey, 'resp_doesnotexist'],
      [stranger.apiKey, mine.id],
      [caller.apiKey, unkept.id],
    ] as const) {
      const failure = await client(second, apiKey)
        .responses.create({ model: 'claude-chain', previous_response_id: id, input: 'Go on.' })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(OpenAI.NotFoundError);
      expect((failure as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('previous_response_not_found');
      expect((failure as Error).message).toContain(id);
    }
    const malformed = await fetch(`${first.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${caller.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-chain', input: 'x', previous_response_id: { $ne: null } }),
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).error.message).toContain('previous_response_id');
    expect(claude.requests.length).toBe(before);
    expect((await billedState(first.ctx, { ...stranger, channelId })).logs.length).toBe(billedBefore);
  });

  it('keeps rows per user with an expiry, and only completed answers', async () => {
    const db = first.ctx.storage.db;
    const rows = await db.selectFrom('stored_responses').selectAll().where('user_id', '=', caller.userId).execute();
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) {
      expect(Number(row.status)).toBe(1);
      expect(Number(row.expires_at) - Number(row.created_at)).toBe(30 * 24 * 3600);
    }
    const stored = JSON.parse(rows[0]!.items);
    expect(stored.every((item: { id?: string }) => item.id === undefined)).toBe(true);

    // An expired response cannot be continued.
    const now = Math.floor(Date.now() / 1000);
    await db
      .insertInto('stored_responses')
      .values({
        id: 'resp_expired',
        user_id: caller.userId,
        status: 1,
        items: '[]',
        created_at: now - 40 * 86400,
        expires_at: now - 10 * 86400,
      })
      .execute();
    const expired = await client(first)
      .responses.create({ model: 'claude-chain', previous_response_id: 'resp_expired', input: 'x' })
      .catch((error: unknown) => error);
    expect(expired).toBeInstanceOf(OpenAI.NotFoundError);

    // The newest 1000 per user are kept: the oldest go as new ones come.
    const filler = Array.from({ length: 1000 }, (_, i) => ({
      id: `resp_fill${i}`,
      user_id: caller.userId,
      status: 1,
      items: '[]',
      created_at: now - 5000 + i,
      expires_at: now + 86400,
    }));
    for (let at = 0; at < filler.length; at += 200)
      await db
        .insertInto('stored_responses')
        .values(filler.slice(at, at + 200))
        .execute();
    const latest = await client(first).responses.create({ model: 'claude-chain', input: 'One more.' });
    // Kept (and trimmed) just after the answer went out.
    const kept = await vi.waitFor(async () => {
      const rows = await db.selectFrom('stored_responses').select('id').where('user_id', '=', caller.userId).execute();
      expect(rows.length).toBe(1000);
      return rows;
    });
    const ids = new Set(kept.map((row) => row.id));
    expect(ids.has(latest.id)).toBe(true);
    expect(ids.has('resp_fill999')).toBe(true);
    expect(ids.has('resp_expired')).toBe(false);
    expect(ids.has('resp_fill0')).toBe(false);
  });
});
