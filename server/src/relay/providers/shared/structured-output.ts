import { RelayError } from '../../errors.js';
import type { ConvertedEvents, StreamEvent } from '../types.js';
import type { Json } from '@modelgate/shared';

/**
 * Structured output on channels without a JSON mode (Claude): the requested schema becomes a tool
 * the model is made to call, and the call's arguments come back as the answer's text. The caller
 * asked for `response_format` (chat), `text.format` (Responses) or `responseSchema` (Gemini; both
 * reach here as the canonical `response_format`) and gets JSON text, never a tool call.
 */
export interface JsonTool {
  /** The tool's name: the schema's own name when it is a valid one no caller tool uses. */
  name: string;
}

const toolName = /^[a-zA-Z0-9_-]{1,64}$/;
/** A malformed JSON output request (`response_format`, an Anthropic client's `output_config.format`): the caller's 400. */
export const badFormat = (message: string) => new RelayError(400, 'invalid_response_format', message, false, 'invalid_request_error');

/** The object schema of a `response_format`, null when none was asked for; a malformed one is a 400. */
function schemaOf(format: unknown): { name: string | null; description: string | null; schema: Json } | null {
  if (format === undefined || format === null) return null;
  if (typeof format !== 'object' || Array.isArray(format)) throw badFormat('response_format 必须是对象');
  const { type } = format as Json;
  if (type === 'text') return null;
  if (type === 'json_object') return { name: null, description: null, schema: { type: 'object' } };
  if (type !== 'json_schema') throw badFormat(`response_format.type 不支持 ${typeof type === 'string' ? type.slice(0, 40) : typeof type}`);
  const spec = (format as Json).json_schema;
  if (!spec || typeof spec !== 'object' || Array.isArray(spec)) throw badFormat('response_format.json_schema 必须是对象');
  const { name, description, schema } = spec as Json;
  if (schema === undefined) return { name: typeof name === 'string' ? name : null, description: null, schema: { type: 'object' } };
  if (!schema || typeof schema !== 'object' || Array.isArray(schema))
    throw badFormat('response_format.json_schema.schema 必须是 JSON Schema 对象');
  const rootType = (schema as Json).type;
  if (rootType !== undefined && rootType !== 'object') throw badFormat('response_format.json_schema.schema 的根类型必须是 object');
  return {
    name: typeof name === 'string' ? name : null,
    description: typeof description === 'string' ? description : null,
    schema: schema as Json,
  };
}

/** Whether a (valid) format carries a schema of its own: json_object and a schema-less json_schema do not. */
const hasSchema = (format: unknown): boolean => ((format as Json).json_schema as Json | undefined)?.schema !== undefined;

/** The schema, with the format's description as its own when it has none (a native format has no description field). */
const withDescription = ({ schema, description }: { schema: Json; description: string | null }): Json =>
  description && schema.description === undefined ? { ...schema, description } : schema;

const toolNamesOf = (tools: unknown): Set<string> =>
  new Set(
    Array.isArray(tools)
      ? (tools as Json[])
          .map((tool) => (tool?.function as Json | undefined)?.name)
          .filter((name): name is string => typeof name === 'string')
      : [],
  );

/** Whether the request turns on a thinking mode that forbids forcing a tool (Claude). */
const isThinking = (body: Json, upstreamModel: string): boolean =>
  (typeof body.reasoning_effort === 'string' && body.reasoning_effort !== 'none') || upstreamModel.endsWith('-thinking');

/**
 * The canonical body with its `response_format` turned into a tool the model must call, or the
 * body unchanged (and null) when no JSON output was asked for. With caller tools the model must
 * call one of them or the JSON tool (`required`); with thinking on, a forced choice is not allowed
 * upstream, so the choice stays free and a system line asks for the tool.
 *
 * `nativeSchema` (models that take a schema themselves: Claude's `output_config.format`) gives the
 * schema as the model takes it, or null when it cannot: a json_schema format it takes stays the
 * `response_format`, with that schema, and no tool is added; the answer is the model's own text.
 * json_object has no schema to give and always becomes the tool. Malformed formats are the same 400s.
 */
export function jsonAsTool(
  body: Json,
  upstreamModel: string,
  nativeSchema?: (schema: Json) => Json | null,
): { body: Json; tool: JsonTool | null } {
  const spec = schemaOf(body.response_format);
  if (!spec) {
    if (body.response_format === undefined) return { body, tool: null };
    const { response_format: _dropped, ...rest } = body;
    return { body: rest, tool: null };
  }
  const native = nativeSchema && hasSchema(body.response_format) ? nativeSchema(withDescription(spec)) : null;
  if (native) {
    const json_schema = spec.name ? { name: spec.name, schema: native } : { schema: native };
    return { body: { ...body, response_format: { type: 'json_schema', json_schema } }, tool: null };
  }
  const taken = toolNamesOf(body.tools);
  let name = spec.name && toolName.test(spec.name) && !taken.has(spec.name) ? spec.name : 'json_response';
  for (let i = 2; taken.has(name); i += 1) name = `json_response_${i}`;
  const { response_format: _format, ...out } = body;
  const description = `${spec.description ? `${spec.description}\n` : ''}Give your final answer by calling this tool: its input is the answer, a JSON object matching the schema.`;
  out.tools = [
    ...(Array.isArray(body.tools) ? body.tools : []),
    { type: 'function', function: { name, description, parameters: spec.schema } },
  ];
  if (isThinking(body, upstreamModel)) {
    out.tool_choice = 'auto';
    const messages = Array.isArray(body.messages) ? body.messages : [];
    out.messages = [...messages, { role: 'system', content: `Answer only by calling the ${name} tool.` }];
  } else {
    out.tool_choice = taken.size > 0 ? 'required' : { type: 'function', function: { name } };
  }
  out.parallel_tool_calls = taken.size > 0 ? body.parallel_tool_calls : false;
  return { body: out, tool: { name } };
}

/** A non-stream completion: the JSON tool's call becomes the message's content. */
export function jsonFromToolCall(completion: Json, tool: JsonTool): Json {
  const choices = Array.isArray(completion.choices) ? (completion.choices as Json[]) : [];
  for (const choice of choices) {
    const message = (choice.message ?? {}) as Json;
    const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Json[]) : [];
    const json = calls.find((call) => (call.function as Json | undefined)?.name === tool.name);
    if (!json) continue;
    const rest = calls.filter((call) => call !== json);
    const args = (json.function as Json).arguments;
    message.content = typeof args === 'string' ? args : JSON.stringify(args ?? {});
    if (rest.length > 0) message.tool_calls = rest;
    else {
      delete message.tool_calls;
      if (choice.finish_reason === 'tool_calls') choice.finish_reason = 'stop';
    }
    choice.message = message;
  }
  return completion;
}

type Transform = { onEvent(event: StreamEvent): ConvertedEvents; finish(): ConvertedEvents };

/**
 * A stream: the JSON tool's argument deltas become content deltas, the other tool calls keep their
 * order with indexes renumbered, and `tool_calls` as the finish reason becomes `stop` when the JSON
 * tool was the only call.
 */
export function jsonFromToolStream(transform: Transform, tool: JsonTool): Transform {
  let jsonIndex: number | null = null;
  const renumbered = new Map<number, number>();
  let isOtherCall = false;

  const rewrite = (chunk: Json): Json => {
    const choices = Array.isArray(chunk.choices) ? (chunk.choices as Json[]) : [];
    for (const choice of choices) {
      const delta = choice.delta as Json | undefined;
      if (delta && Array.isArray(delta.tool_calls)) {
        let content = typeof delta.content === 'string' ? delta.content : '';
        const kept: Json[] = [];
        for (const call of delta.tool_calls as Json[]) {
          const index = typeof call.index === 'number' ? call.index : 0;
          const fn = (call.function ?? {}) as Json;
          if (jsonIndex === null && fn.name === tool.name) jsonIndex = index;
          if (index === jsonIndex) {
            if (typeof fn.arguments === 'string') content += fn.arguments;
            continue;
          }
          if (!renumbered.has(index)) renumbered.set(index, renumbered.size);
          isOtherCall = true;
          kept.push({ ...call, index: renumbered.get(index) });
        }
        const { tool_calls: _calls, ...rest } = delta;
        choice.delta = {
          ...rest,
          ...(content !== '' || rest.content !== undefined ? { content } : {}),
          ...(kept.length > 0 ? { tool_calls: kept } : {}),
        };
      }
      if (choice.finish_reason === 'tool_calls' && jsonIndex !== null && !isOtherCall) choice.finish_reason = 'stop';
    }
    return chunk;
  };
  const map = (events: ConvertedEvents): ConvertedEvents => ({ ...events, chunks: events.chunks.map(rewrite) });
  return { onEvent: (event) => map(transform.onEvent(event)), finish: () => map(transform.finish()) };
}
