import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { claudeChatConverter } from '../../src/relay/providers/anthropic/index.js';
import { takesOutputFormat } from '../../src/relay/providers/anthropic/output-format.js';
import { claudeOutputSchema } from '../../src/relay/providers/anthropic/output-schema.js';
import { awsBedrockAdapter } from '../../src/relay/providers/aws-bedrock/index.js';
import { jsonAsTool } from '../../src/relay/providers/shared/structured-output.js';
import type { ChatConverter } from '../../src/relay/providers/types.js';
import { vertexChatConverter } from '../../src/relay/providers/vertex/converter.js';
import { claudeTestOptions } from './helpers/adapter-options.js';

const dispatcher = new Agent();
afterAll(() => dispatcher.close());

const person = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'] };
const asked = {
  model: 'm',
  messages: [{ role: 'user', content: 'Describe Ada' }],
  response_format: { type: 'json_schema', json_schema: { name: 'person', schema: person } },
};
const options = claudeTestOptions();

/** What a converter's hooks make of the request for this model (as jobs/chat-plan.ts calls them). */
const plan = (converter: ChatConverter, model: string, body: Record<string, unknown> = asked, opts = options) =>
  jsonAsTool(body, model, (schema) => converter.nativeJsonSchema?.(schema, model, opts) ?? null);

describe('Claude structured outputs: which models take output_config.format', () => {
  it.each([
    ['claude-sonnet-4-5-20250929', true],
    ['claude-sonnet-4-5', true],
    ['claude-haiku-4-5-20251001-thinking', true],
    ['claude-opus-4-6', true],
    ['claude-sonnet-4-6', true],
    ['claude-opus-4-7', true],
    ['Claude-Opus-4-5-20251101', true],
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', true],
    ['us.anthropic.claude-haiku-4-5-20251001-v1:0', true],
    ['global.anthropic.claude-opus-4-5-20251101-v1:0', true],
    ['arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-5-20250929-v1:0', true],
    ['claude-sonnet-4-5@20250929', true],
    ['claude-sonnet-4-20250514', false],
    ['claude-sonnet-4@20250514', false],
    ['claude-opus-4-1-20250805', false],
    ['claude-opus-4-20250514', false],
    ['claude-3-7-sonnet-20250219', false],
    ['anthropic.claude-3-5-haiku-20241022-v1:0', false],
    ['anthropic.claude-v2:1', false],
    ['arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123', false],
  ])('%s: %s', (model, expected) => {
    expect(takesOutputFormat(model, options)).toBe(expected);
  });

  it('follows claude.structured_output_models: a model added, the list emptied, a stored bad value read as the default', () => {
    expect(takesOutputFormat('claude-next-1', claudeTestOptions({ 'claude.structured_output_models': '["claude-next"]' }))).toBe(true);
    expect(takesOutputFormat('claude-sonnet-4-5', claudeTestOptions({ 'claude.structured_output_models': '["claude-next"]' }))).toBe(false);
    expect(takesOutputFormat('claude-sonnet-4-5', claudeTestOptions({ 'claude.structured_output_models': '[]' }))).toBe(false);
    for (const stored of ['{"claude-sonnet-4-5": true}', '[1, 2]', '["claude", null]', '[""]', '"claude"', 'null', 'not json']) {
      expect(takesOutputFormat('claude-sonnet-4-5', claudeTestOptions({ 'claude.structured_output_models': stored })), stored).toBe(true);
      expect(takesOutputFormat('claude-sonnet-4-20250514', claudeTestOptions({ 'claude.structured_output_models': stored })), stored).toBe(
        false,
      );
    }
  });
});

describe('Claude structured outputs: the schema as Anthropic takes it', () => {
  it("adds additionalProperties: false to every object, moves unsupported constraints into the description, never changes the caller's schema", () => {
    const schema = z.toJSONSchema(
      z.object({
        name: z.string().min(2).describe('Full name'),
        age: z.number().int(),
        score: z.number().min(0).max(10),
        tags: z.array(z.string()).min(2),
        address: z.object({ city: z.string() }),
        kind: z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]),
        at: z.string().datetime(),
      }),
    ) as Record<string, unknown>;
    const before = JSON.stringify(schema);
    const adapted = claudeOutputSchema(schema) as any;
    expect(JSON.stringify(schema)).toBe(before);
    expect(adapted.$schema).toBeUndefined();
    expect(adapted.additionalProperties).toBe(false);
    expect(adapted.properties.address.additionalProperties).toBe(false);
    expect(adapted.properties.name).toEqual({ type: 'string', description: 'Full name\n\n{"minLength":2}' });
    // zod's ±2^53−1 on every integer only says "integer".
    expect(adapted.properties.age).toEqual({ type: 'integer' });
    expect(adapted.properties.score).toEqual({ type: 'number', description: '{"minimum":0,"maximum":10}' });
    expect(adapted.properties.tags).toEqual({ type: 'array', items: { type: 'string' }, description: '{"minItems":2}' });
    expect(adapted.properties.at.format).toBe('date-time');
    expect(adapted.properties.kind.anyOf.map((option: any) => option.additionalProperties)).toEqual([false, false]);
  });

  it('oneOf becomes anyOf, objects in $defs and array items are closed too, a root without type is an object', () => {
    const adapted = claudeOutputSchema({
      properties: {
        pet: { oneOf: [{ $ref: '#/$defs/cat' }, { type: 'null' }] },
        list: { type: 'array', items: { type: 'object', properties: { x: { type: 'string' } } } },
      },
      $defs: { cat: { type: 'object', properties: { lives: { type: 'integer' } } } },
    }) as any;
    expect(adapted.type).toBe('object');
    expect(adapted.properties.pet).toEqual({ anyOf: [{ $ref: '#/$defs/cat' }, { type: 'null' }] });
    expect(adapted.$defs.cat.additionalProperties).toBe(false);
    expect(adapted.properties.list.items.additionalProperties).toBe(false);
  });

  it.each([
    [
      'a map (additionalProperties: schema)',
      { type: 'object', properties: { scores: { type: 'object', additionalProperties: { type: 'number' } } } },
    ],
    ['additionalProperties: true', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true }],
    ['a free-form object', { type: 'object', properties: { meta: { type: 'object' } } }],
    ['patternProperties', { type: 'object', properties: { a: { type: 'object', patternProperties: { '^x': { type: 'string' } } } } }],
    [
      'a recursive $ref',
      {
        type: 'object',
        properties: { root: { $ref: '#/$defs/node' } },
        $defs: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } } } },
      },
    ],
    ['a $ref to the root', { type: 'object', properties: { next: { anyOf: [{ $ref: '#' }, { type: 'null' }] } } }],
    ['an external $ref', { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } }],
    ['a $ref to nowhere', { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }],
  ])('cannot express %s: null (the tool is used)', (_name, schema) => {
    expect(claudeOutputSchema(schema as Record<string, unknown>)).toBeNull();
  });

  it('a $ref used twice is not recursion', () => {
    const shared = {
      type: 'object',
      properties: { home: { $ref: '#/$defs/place' }, work: { $ref: '#/$defs/place' } },
      $defs: { place: { type: 'object', properties: { city: { type: 'string' } } } },
    };
    expect(claudeOutputSchema(shared)).not.toBeNull();
  });
});

describe('Claude structured outputs: the request each Claude channel sends', () => {
  const bedrockCall = (model: string) => ({
    upstreamModel: model,
    isStream: false,
    target: { baseURL: 'http://127.0.0.1:9', key: 'bedrock-api-key|us-east-1', headers: {}, other: '', dispatcher },
    options,
  });

  it('Anthropic: output_config.format with the adapted schema, no tool; the thinking suffix keeps it', async () => {
    for (const model of ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5-20250929-thinking']) {
      const { body, tool } = plan(claudeChatConverter, model);
      expect(tool).toBeNull();
      const built = await claudeChatConverter.buildRequest(body, {
        ...bedrockCall(model),
        target: { ...bedrockCall(model).target, key: 'sk-ant' },
      });
      const sent = built.body as any;
      expect(sent.output_config).toEqual({ format: { type: 'json_schema', schema: { ...person, additionalProperties: false } } });
      expect(sent.tools).toBeUndefined();
      expect(sent.response_format).toBeUndefined();
    }
    expect(asked.response_format.json_schema.schema).not.toHaveProperty('additionalProperties');
  });

  it('Anthropic on an older model, json_object, or a schema native cannot take: the forced tool', async () => {
    const map = {
      ...asked,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'scores', schema: { type: 'object', additionalProperties: { type: 'number' } } },
      },
    };
    for (const [model, body] of [
      ['claude-sonnet-4-20250514', asked],
      ['claude-sonnet-4-5', { ...asked, response_format: { type: 'json_object' } }],
      ['claude-sonnet-4-5', map],
    ] as const) {
      const planned = plan(claudeChatConverter, model, body);
      expect(planned.tool).not.toBeNull();
      const sent = (
        await claudeChatConverter.buildRequest(planned.body, {
          ...bedrockCall(model),
          target: { ...bedrockCall(model).target, key: 'sk-ant' },
        })
      ).body as any;
      expect(sent.output_config).toBeUndefined();
      expect(sent.tool_choice.type).toBe('tool');
    }
  });

  it('Bedrock: output_config in the signed body for a Bedrock id, the tool for an older one', async () => {
    const native = plan(awsBedrockAdapter.chatConverter!, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0');
    const sent = JSON.parse(
      String(
        (await awsBedrockAdapter.chatConverter!.buildRequest(native.body, bedrockCall('us.anthropic.claude-sonnet-4-5-20250929-v1:0')))
          .body,
      ),
    );
    expect(sent.output_config.format.schema.additionalProperties).toBe(false);
    expect(sent.anthropic_version).toBe('bedrock-2023-05-31');
    expect(plan(awsBedrockAdapter.chatConverter!, 'anthropic.claude-3-5-haiku-20241022-v1:0').tool).not.toBeNull();
  });

  it('Vertex: Claude models by the same list, Gemini models never through the Claude hooks', () => {
    expect(plan(vertexChatConverter, 'claude-sonnet-4-5@20250929').tool).toBeNull();
    expect(plan(vertexChatConverter, 'claude-sonnet-4@20250514').tool).not.toBeNull();
    expect(vertexChatConverter.nativeJsonSchema!(person, 'gemini-2.5-pro', options)).toBeNull();
    expect(vertexChatConverter.jsonByTool!('gemini-2.5-pro')).toBe(false);
  });
});
