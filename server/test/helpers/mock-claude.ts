import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local upstream speaking Anthropic's Messages wire (POST /v1/messages), stream and not, that
 * behaves like a model following instructions:
 *   - a forced tool (`tool_choice` tool / any) or an "Answer only by calling the X tool" system
 *     line: it calls that tool (for `any`, a caller tool first, the last tool once a tool result
 *     is in the conversation) with an input generated from the tool's input_schema;
 *   - with a free choice, the first tool until a tool result is in the conversation;
 *   - otherwise it answers `textAnswer` (default "Hello from Claude."), cut at the first of the
 *     request's `stop_sequences` it contains (stop_reason "stop_sequence", as Claude does);
 *   - with structured outputs (`output_config.format`) its text is JSON generated from the schema
 *     (after a thinking block when thinking is on). Like Anthropic, it answers 400 for a model that
 *     does not take the field (not starting with one of `nativeModels`) and for a schema outside the
 *     subset Anthropic documents (an object without `additionalProperties: false`, numeric, length
 *     and size constraints, `oneOf`).
 * Usage is deterministic: input_tokens = 10 + JSON length of the messages / 4, output_tokens =
 * output characters / 4 (rounded up).
 */
export interface MockClaude {
  url: string;
  requests: Array<{ path: string; headers: http.IncomingHttpHeaders; body: any }>;
  /** The usage each answer reported, in request order. */
  usages: Array<{ prompt: number; completion: number }>;
  /** The text of later text answers. */
  textAnswer: string;
  /** Model-name prefixes that take `output_config.format` (Anthropic's list of GA models to begin with). */
  nativeModels: string[];
  close(): Promise<void>;
}

type Schema = Record<string, any>;

/** A value matching a JSON schema (the subset structured output uses: $ref/$defs, anyOf, enums, nullable types). */
export function instanceOf(schema: Schema | undefined, root: Schema = schema ?? {}, depth = 0): unknown {
  if (!schema || depth > 12) return null;
  if (typeof schema.$ref === 'string') {
    const path = schema.$ref.replace(/^#\//, '').split('/');
    let target: any = root;
    for (const part of path) target = target?.[part];
    return instanceOf(target, root, depth + 1);
  }
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(options)) return instanceOf(options.find((option: Schema) => option.type !== 'null') ?? options[0], root, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return schema.format === 'date-time' ? '2026-11-24T10:00:00Z' : schema.format === 'email' ? 'ada@example.com' : 'Ada';
    case 'number':
      return 4.5;
    case 'integer':
      return 42;
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => instanceOf(schema.items, root, depth + 1));
    case 'null':
      return null;
    default: {
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
        out[name] = instanceOf(property, root, depth + 1);
      return out;
    }
  }
}

const systemText = (system: unknown): string =>
  typeof system === 'string' ? system : Array.isArray(system) ? system.map((block: any) => block?.text ?? '').join('\n') : '';

function toolToCall(body: any): any | null {
  const tools: any[] = Array.isArray(body.tools) ? body.tools : [];
  if (tools.length === 0) return null;
  const choice = body.tool_choice;
  if (choice?.type === 'tool') return tools.find((tool) => tool.name === choice.name) ?? null;
  const named = /Answer only by calling the ([\w-]+) tool/.exec(systemText(body.system));
  if (named) return tools.find((tool) => tool.name === named[1]) ?? null;
  const hasResult = JSON.stringify(body.messages ?? []).includes('"tool_result"');
  if (choice?.type === 'any') return hasResult ? tools[tools.length - 1] : tools[0];
  // A free choice: the first tool until a result came back, then the answer.
  if (choice?.type === 'none') return null;
  return hasResult ? null : tools[0];
}

/** Anthropic's documented subset of JSON Schema for structured outputs: why a schema is outside it, or null. */
function outputSchemaProblem(node: Schema, path: string): string | null {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return null;
  for (const key of [
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'multipleOf',
    'minLength',
    'maxLength',
    'maxItems',
    'oneOf',
  ]) {
    if (node[key] !== undefined) return `${path}: '${key}' is not supported`;
  }
  if (typeof node.minItems === 'number' && node.minItems > 1) return `${path}: 'minItems' values other than 0 or 1 are not supported`;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if ((types.includes('object') || node.properties) && node.additionalProperties !== false)
    return `${path}: For 'object' type, 'additionalProperties' must be explicitly set to false`;
  const children: Array<[string, Schema]> = [];
  for (const key of ['properties', '$defs', 'definitions'])
    for (const [name, child] of Object.entries(node[key] ?? {})) children.push([`${path}.${key}.${name}`, child as Schema]);
  for (const key of ['anyOf', 'allOf'])
    if (Array.isArray(node[key])) node[key].forEach((child: Schema, i: number) => children.push([`${path}.${key}[${i}]`, child]));
  if (node.items) children.push([`${path}.items`, node.items]);
  for (const [childPath, child] of children) {
    const problem = outputSchemaProblem(child, childPath);
    if (problem) return problem;
  }
  return null;
}

/** Why Anthropic would refuse the request's `output_config.format` for this model, or null. */
function outputFormatProblem(format: any, model: string, nativeModels: string[]): string | null {
  const name = String(model).replace(/^(?:[a-z][a-z-]*\.)+/, '');
  if (!nativeModels.some((prefix) => name.startsWith(prefix)))
    return `output_config.format: structured outputs are not supported for the model '${model}'`;
  if (format?.type !== 'json_schema' || !format.schema || typeof format.schema !== 'object')
    return 'output_config.format: expected a json_schema format with a schema';
  return outputSchemaProblem(format.schema, 'output_config.format.schema');
}

function cutAtStop(text: string, stops: unknown): { text: string; stop: string | null } {
  let at = -1;
  let matched: string | null = null;
  for (const stop of Array.isArray(stops) ? stops : []) {
    const index = typeof stop === 'string' && stop ? text.indexOf(stop) : -1;
    if (index >= 0 && (at < 0 || index < at)) {
      at = index;
      matched = stop;
    }
  }
  return at < 0 ? { text, stop: null } : { text: text.slice(0, at), stop: matched };
}

export async function startMockClaude(): Promise<MockClaude> {
  const requests: MockClaude['requests'] = [];
  const usages: MockClaude['usages'] = [];
  const state = {
    textAnswer: 'Hello from Claude.',
    nativeModels: ['claude-opus-4-7', 'claude-opus-4-6', 'claude-sonnet-4-6', 'claude-sonnet-4-5', 'claude-opus-4-5', 'claude-haiku-4-5'],
  };
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      const inputTokens = 10 + Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
      const format = body.output_config?.format;
      const formatProblem = format === undefined ? null : outputFormatProblem(format, body.model, state.nativeModels);
      if (formatProblem) return refuse(res, formatProblem);
      const tool = toolToCall(body);
      const id = `msg_mock${requests.length}`;
      const model = body.model;
      if (tool) {
        const input = instanceOf(tool.input_schema);
        const json = JSON.stringify(input);
        const outputTokens = Math.ceil(json.length / 4);
        usages.push({ prompt: inputTokens, completion: outputTokens });
        const block = { type: 'tool_use', id: `toolu_mock${requests.length}`, name: tool.name, input };
        if (body.stream !== true) {
          return send(res, {
            id,
            type: 'message',
            role: 'assistant',
            model,
            content: [block],
            stop_reason: 'tool_use',
            stop_sequence: null,
            usage: { input_tokens: inputTokens, output_tokens: outputTokens },
          });
        }
        const pieces = json.match(/.{1,7}/gs) ?? [];
        return stream(res, [
          [
            'message_start',
            {
              type: 'message_start',
              message: {
                id,
                type: 'message',
                role: 'assistant',
                model,
                content: [],
                stop_reason: null,
                usage: { input_tokens: inputTokens, output_tokens: 1 },
              },
            },
          ],
          ['content_block_start', { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } }],
          ...pieces.map((piece): [string, object] => [
            'content_block_delta',
            { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: piece } },
          ]),
          ['content_block_stop', { type: 'content_block_stop', index: 0 }],
          [
            'message_delta',
            { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: outputTokens } },
          ],
          ['message_stop', { type: 'message_stop' }],
        ]);
      }
      const { text, stop } = format
        ? { text: JSON.stringify(instanceOf(format.schema)), stop: null }
        : cutAtStop(state.textAnswer, body.stop_sequences);
      const thinking = format && body.thinking?.type === 'enabled' ? 'The schema asks for a person.' : null;
      const outputTokens = Math.ceil(((thinking ?? '') + text).length / 4);
      usages.push({ prompt: inputTokens, completion: outputTokens });
      const stopReason = stop ? 'stop_sequence' : 'end_turn';
      const thinkingBlock = { type: 'thinking', thinking, signature: 'sig-mock' };
      if (body.stream !== true) {
        const content = [...(thinking ? [thinkingBlock] : []), { type: 'text', text }];
        return send(res, {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content,
          stop_reason: stopReason,
          stop_sequence: stop,
          usage: { input_tokens: inputTokens, output_tokens: outputTokens },
        });
      }
      const pieces = text.match(/.{1,6}/gs) ?? [];
      const at = thinking ? 1 : 0;
      return stream(res, [
        [
          'message_start',
          {
            type: 'message_start',
            message: {
              id,
              type: 'message',
              role: 'assistant',
              model,
              content: [],
              stop_reason: null,
              usage: { input_tokens: inputTokens, output_tokens: 1 },
            },
          },
        ],
        ...(thinking
          ? ([
              [
                'content_block_start',
                { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
              ],
              ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking } }],
              ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-mock' } }],
              ['content_block_stop', { type: 'content_block_stop', index: 0 }],
            ] as Array<[string, object]>)
          : []),
        ['content_block_start', { type: 'content_block_start', index: at, content_block: { type: 'text', text: '' } }],
        ...pieces.map((piece): [string, object] => [
          'content_block_delta',
          { type: 'content_block_delta', index: at, delta: { type: 'text_delta', text: piece } },
        ]),
        ['content_block_stop', { type: 'content_block_stop', index: at }],
        [
          'message_delta',
          { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: stop }, usage: { output_tokens: outputTokens } },
        ],
        ['message_stop', { type: 'message_stop' }],
      ]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    usages,
    get textAnswer() {
      return state.textAnswer;
    },
    set textAnswer(value: string) {
      state.textAnswer = value;
    },
    get nativeModels() {
      return state.nativeModels;
    },
    set nativeModels(value: string[]) {
      state.nativeModels = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function send(res: http.ServerResponse, payload: object): void {
  const text = JSON.stringify(payload);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Anthropic's 400 for a request it will not take. */
function refuse(res: http.ServerResponse, message: string): void {
  const text = JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } });
  res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function stream(res: http.ServerResponse, events: Array<[string, object]>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}
