import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockClaude, type MockClaude } from '../helpers/mock-claude.js';
import { startMockModels, type MockModels } from '../helpers/mock-models.js';
import { createRelayChannel, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createSdkCaller } from './sdk-setup.js';

/** A content part a conversion cannot read is the caller's 400 in its own format, naming where it is: never dropped. */
describe('malformed and unconvertible content parts', () => {
  let server: TestServer;
  let models: MockModels;
  let claude: MockClaude;
  let caller: { userId: number; tokenId: number; apiKey: string };

  beforeAll(async () => {
    server = await startTestServer();
    models = await startMockModels();
    claude = await startMockClaude();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-parts': 1, 'claude-parts': 1, 'gemini-parts': 1 }));
    caller = await createSdkCaller(server.ctx);
    await createRelayChannel(server.ctx, { type: 1, key: 'sk-parts', baseURL: models.url, models: ['gpt-parts'] });
    await createRelayChannel(server.ctx, { type: 14, key: 'sk-ant-parts', baseURL: claude.url, models: ['claude-parts'] });
    await createRelayChannel(server.ctx, { type: 24, key: 'AIza-parts', baseURL: models.url, models: ['gemini-parts'] });
  });
  afterAll(async () => {
    await server?.stop();
    await models?.close();
    await claude?.close();
  });

  const openai = () => new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const sentUpstream = () => models.requests.length + claude.requests.length;

  it('OpenAI chat parts a Claude or Gemini channel cannot take: a 400 naming the part, nothing sent or billed', async () => {
    const before = sentUpstream();
    const cases: Array<[string, unknown, string]> = [
      [
        'claude-parts',
        { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
        'Claude channels do not support the content type input_audio',
      ],
      ['claude-parts', { type: 'image_url', image_url: { url: 'ftp://example.com/cat.png' } }, 'image_url.url'],
      ['gemini-parts', { type: 'file', file: { file_id: 'file-abc' } }, 'file_id is not supported'],
      ['gemini-parts', 42, 'A content part must be an object'],
      ['claude-parts', { type: 'video_url', video_url: { url: 'https://example.com/v.mp4' } }, 'do not support the content type video_url'],
    ];
    for (const [model, part, message] of cases) {
      const failure = await openai()
        .chat.completions.create({
          model,
          messages: [
            { role: 'user', content: [{ type: 'text', text: 'look' }, part as OpenAI.Chat.Completions.ChatCompletionContentPart] },
          ],
        })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
      expect((failure as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('invalid_content_part');
      expect((failure as Error).message).toContain('messages[0].content[1]');
      expect((failure as Error).message).toContain(message);
    }
    expect(sentUpstream()).toBe(before);
    await flushRelay(server.ctx);
    const consumed = await server.ctx.storage.db
      .selectFrom('logs')
      .select('id')
      .where('user_id', '=', caller.userId)
      .where('type', '=', 2)
      .execute();
    expect(consumed).toEqual([]);
  });

  it('the Anthropic API: a malformed block is an Anthropic-shaped 400 on any channel', async () => {
    const client = new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 });
    for (const model of ['gpt-parts', 'gemini-parts']) {
      const failure = await client.messages
        .create({
          model,
          max_tokens: 16,
          messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png' } as never }] }],
        })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Anthropic.BadRequestError);
      const body = (failure as InstanceType<typeof Anthropic.BadRequestError>).error as any;
      expect(body.type).toBe('error');
      expect(body.error.type).toBe('invalid_request_error');
      expect(body.error.message).toContain('messages[0].content[0]');
    }
    const noRole = await client.messages
      .create({ model: 'gpt-parts', max_tokens: 16, messages: [{ role: 'system' as never, content: 'x' }] })
      .catch((error: unknown) => error);
    expect(noRole).toBeInstanceOf(Anthropic.BadRequestError);
  });

  it('the Gemini API and the Responses API: malformed parts are 400s in their own shapes', async () => {
    const gemini = await fetch(`${server.url}/v1beta/models/claude-parts:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': caller.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'see' }, { inlineData: { mimeType: 'image/png' } }] }] }),
    });
    expect(gemini.status).toBe(400);
    const googleError = ((await gemini.json()) as any).error;
    expect(googleError.status).toBe('INVALID_ARGUMENT');
    expect(googleError.message).toContain('contents[0].parts[1]');

    const responses = await openai()
      .responses.create({ model: 'claude-parts', input: [{ role: 'user', content: [{ type: 'input_text', text: 5 as never }] }] })
      .catch((error: unknown) => error);
    expect(responses).toBeInstanceOf(OpenAI.BadRequestError);
    expect((responses as Error).message).toContain('input[0].content[0]');
  });

  it('the Gemini API: a malformed system instruction, config or tool list is a 400 naming it on every channel', async () => {
    const before = sentUpstream();
    const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ systemInstruction: { parts: 'be brief' } }, 'systemInstruction.parts'],
      [{ systemInstruction: 'be brief' }, 'systemInstruction'],
      [{ systemInstruction: { parts: [null] } }, 'systemInstruction.parts[0]'],
      [{ systemInstruction: { parts: [{ text: 5 }] } }, 'systemInstruction.parts[0]'],
      [{ generationConfig: 'fast' }, 'generationConfig'],
      [{ tools: {} }, 'tools'],
      [{ tools: [null] }, 'tools[0]'],
      [{ tools: [{ functionDeclarations: [null] }] }, 'tools[0].functionDeclarations[0]'],
      [{ tools: [{ function_declarations: [{ description: 'no name' }] }] }, 'tools[0].functionDeclarations[0]'],
    ];
    for (const model of ['gpt-parts', 'claude-parts', 'gemini-parts']) {
      for (const [fields, where] of cases) {
        const res = await fetch(`${server.url}/v1beta/models/${model}:generateContent`, {
          method: 'POST',
          headers: { 'x-goog-api-key': caller.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ contents, ...fields }),
        });
        expect(res.status, `${model} ${JSON.stringify(fields)}`).toBe(400);
        const error = ((await res.json()) as any).error;
        expect(error.status).toBe('INVALID_ARGUMENT');
        expect(error.message.startsWith(`${where}:`), error.message).toBe(true);
      }
    }
    for (const tools of [[null], [{ type: 'function' }], 'f']) {
      const failure = await openai()
        .responses.create({ model: 'claude-parts', input: 'hi', tools: tools as never })
        .catch((error: unknown) => error);
      expect(failure, JSON.stringify(tools)).toBeInstanceOf(OpenAI.BadRequestError);
      expect((failure as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('invalid_content_part');
    }
    expect(sentUpstream()).toBe(before);
  });

  it("the Gemini API in snake_case, as Google's own curl examples write it, reaches every channel whole", async () => {
    const body = {
      system_instruction: { parts: [{ text: 'Answer as a pirate.' }] },
      contents: [{ role: 'user', parts: [{ text: 'what is this' }, { inline_data: { mime_type: 'image/png', data: 'iVBORw0KGgo=' } }] }],
      generation_config: { max_output_tokens: 64, stop_sequences: ['END'], temperature: 0.2 },
      tools: [
        {
          function_declarations: [
            { name: 'look_up', parameters_json_schema: { type: 'object', properties: { order_id: { type: 'string' } } } },
          ],
        },
      ],
      tool_config: { function_calling_config: { mode: 'NONE' } },
    };
    const send = (model: string) =>
      fetch(`${server.url}/v1beta/models/${model}:generateContent`, {
        method: 'POST',
        headers: { 'x-goog-api-key': caller.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await send('claude-parts')).status).toBe(200);
    const toClaude = claude.requests.at(-1)!.body;
    expect(JSON.stringify(toClaude.system)).toContain('Answer as a pirate.');
    expect(toClaude.max_tokens).toBe(64);
    expect(toClaude.temperature).toBe(0.2);
    expect(toClaude.messages[0].content[1]).toMatchObject({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
    });
    expect(toClaude.tools[0]).toMatchObject({ name: 'look_up', input_schema: { properties: { order_id: { type: 'string' } } } });

    expect((await send('gpt-parts')).status).toBe(200);
    const toOpenAi = models.requests.at(-1)!.body;
    expect(toOpenAi.messages[0]).toEqual({ role: 'system', content: 'Answer as a pirate.' });
    expect(toOpenAi.max_tokens ?? toOpenAi.max_completion_tokens).toBe(64);
    expect(toOpenAi.stop).toEqual(['END']);
    expect(toOpenAi.tool_choice).toBe('none');

    // A Gemini channel gets the request natively, in one spelling (user-named schema properties kept).
    expect((await send('gemini-parts')).status).toBe(200);
    const native = models.requests.at(-1)!.body;
    expect(native.systemInstruction).toEqual({ parts: [{ text: 'Answer as a pirate.' }] });
    expect(native.generationConfig).toMatchObject({ maxOutputTokens: 64, stopSequences: ['END'] });
    expect(native.contents[0].parts[1]).toEqual({ inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } });
    expect(native.tools[0].functionDeclarations[0].parametersJsonSchema.properties).toHaveProperty('order_id');
    expect(JSON.stringify(native)).not.toMatch(/system_instruction|generation_config|inline_data|max_output_tokens/);
  });

  it('well-formed parts still pass: an image on Claude, audio on Gemini', async () => {
    const image = await openai().chat.completions.create({
      model: 'claude-parts',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    expect(image.choices[0]!.message.content).toBe('Hello from Claude.');
    expect(claude.requests.at(-1)!.body.messages[0].content[1]).toMatchObject({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png' },
    });
    const audio = await openai().chat.completions.create({
      model: 'gemini-parts',
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] }],
    });
    expect(audio.choices[0]!.message.content).toBe('The answer is 42.');
    expect(models.requests.at(-1)!.body.contents[0].parts[0]).toEqual({ inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } });
  });
});
