import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { instanceOf } from './mock-claude.js';

/**
 * One local upstream speaking three providers' wires — OpenAI chat (`POST …/chat/completions`) and
 * Responses (`POST …/responses`, what OpenAI channels get natively),
 * Gemini (`POST …/models/{model}:generateContent|streamGenerateContent?alt=sse`) and, through
 * mock-claude.ts, Anthropic — with one behaviour, so a client × channel matrix can check the same
 * journey everywhere: with tools and no tool result yet in the conversation (or a forced choice) it
 * calls the first (or forced) tool with arguments generated from its schema; otherwise it answers
 * `text` (on Gemini, with `responseMimeType: application/json`, an instance of the response schema).
 * Streams use each wire's full event sequence. Usage is deterministic per request and kept in
 * `usages` (prompt = 10 + JSON length of the conversation / 4, completion = output length / 4).
 */
export interface MockModels {
  url: string;
  requests: Array<{ path: string; headers: http.IncomingHttpHeaders; body: any }>;
  /** The usage each answer reported, in request order. */
  usages: Array<{ prompt: number; completion: number }>;
  text: string;
  close(): Promise<void>;
}

interface Decision {
  tool: { name: string; schema: any } | null;
}

function decideOpenAi(body: any): Decision {
  const tools: any[] = Array.isArray(body.tools) ? body.tools.filter((tool: any) => tool?.type === 'function') : [];
  if (tools.length === 0 || body.tool_choice === 'none') return { tool: null };
  const forced = body.tool_choice?.function?.name;
  const hasResult = (body.messages ?? []).some((message: any) => message.role === 'tool');
  const pick = forced ? tools.find((tool) => tool.function.name === forced) : body.tool_choice === 'required' || !hasResult ? tools[0] : null;
  return { tool: pick ? { name: pick.function.name, schema: pick.function.parameters } : null };
}

function decideResponses(body: any): Decision {
  const tools: any[] = Array.isArray(body.tools) ? body.tools.filter((tool: any) => tool?.type === 'function') : [];
  if (tools.length === 0 || body.tool_choice === 'none') return { tool: null };
  const hasResult = Array.isArray(body.input) && body.input.some((item: any) => item?.type === 'function_call_output');
  const forced = body.tool_choice?.type === 'function' ? body.tool_choice.name : null;
  const pick = forced ? tools.find((tool) => tool.name === forced) : body.tool_choice === 'required' || !hasResult ? tools[0] : null;
  return { tool: pick ? { name: pick.name, schema: pick.parameters } : null };
}

function decideGemini(body: any): Decision {
  const declarations: any[] = (body.tools ?? []).flatMap((tool: any) => tool.functionDeclarations ?? []);
  const mode = body.toolConfig?.functionCallingConfig?.mode;
  if (declarations.length === 0 || mode === 'NONE') return { tool: null };
  const hasResult = JSON.stringify(body.contents ?? []).includes('"functionResponse"');
  const allowed: string[] | undefined = body.toolConfig?.functionCallingConfig?.allowedFunctionNames;
  const pick = mode === 'ANY' ? declarations.find((d) => !allowed || allowed.includes(d.name)) : hasResult ? null : declarations[0];
  return { tool: pick ? { name: pick.name, schema: pick.parametersJsonSchema ?? pick.parameters } : null };
}

/** Gemini's OpenAPI schema types are upper case (OBJECT, STRING): the generator reads JSON Schema. */
function jsonSchemaOf(schema: any): any {
  if (Array.isArray(schema)) return schema.map(jsonSchemaOf);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'type' && typeof value === 'string' ? value.toLowerCase() : jsonSchemaOf(value)]));
}

const tokens = (value: unknown) => Math.ceil(JSON.stringify(value ?? []).length / 4);

export async function startMockModels(): Promise<MockModels> {
  const state: Omit<MockModels, 'url' | 'close'> = { requests: [], usages: [], text: 'The answer is 42.' };
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
      const path = req.url ?? '';
      state.requests.push({ path, headers: req.headers, body });
      if (path.includes('/chat/completions')) return openAiAnswer(res, body, state);
      if (path.endsWith('/responses')) return responsesAnswer(res, body, state);
      if (/:(stream)?[gG]enerateContent/.test(path)) return geminiAnswer(res, body, path.includes(':streamGenerateContent'), state);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `unknown path ${path}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

function openAiAnswer(res: http.ServerResponse, body: any, state: Omit<MockModels, 'url' | 'close'>): void {
  const { tool } = decideOpenAi(body);
  const args = tool ? JSON.stringify(instanceOf(tool.schema)) : '';
  const usage = { prompt: 10 + tokens(body.messages), completion: Math.ceil((tool ? args.length : state.text.length) / 4) };
  state.usages.push(usage);
  const openAiUsage = { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion };
  const id = `chatcmpl-models${state.requests.length}`;
  const created = Math.floor(Date.now() / 1000);
  const call = tool ? { id: `call_models${state.requests.length}`, type: 'function', function: { name: tool.name, arguments: args } } : null;
  if (body.stream !== true) {
    const message = call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: state.text };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message, finish_reason: call ? 'tool_calls' : 'stop' }], usage: openAiUsage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.write(chunk({ role: 'assistant', content: '' }));
  if (call) {
    res.write(chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: tool!.name, arguments: '' } }] }));
    for (const piece of args.match(/.{1,5}/gs) ?? []) res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  } else {
    for (const piece of state.text.match(/.{1,4}/gs) ?? []) res.write(chunk({ content: piece }));
  }
  res.write(chunk({}, call ? 'tool_calls' : 'stop'));
  if (body.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage: openAiUsage })}\n\n`);
  res.end('data: [DONE]\n\n');
}

function geminiAnswer(res: http.ServerResponse, body: any, isStream: boolean, shared: Omit<MockModels, 'url' | 'close'>): void {
  // JSON mode: the answer is an instance of the requested schema.
  const config = body.generationConfig ?? {};
  const schema = config.responseJsonSchema ?? config.responseSchema;
  const state = config.responseMimeType === 'application/json' ? { ...shared, text: JSON.stringify(schema ? instanceOf(jsonSchemaOf(schema)) : {}) } : shared;
  const { tool } = decideGemini(body);
  const args = tool ? instanceOf(jsonSchemaOf(tool.schema)) : null;
  const output = tool ? JSON.stringify(args) : state.text;
  const usage = { prompt: 10 + tokens(body.contents), completion: Math.ceil(output.length / 4) };
  state.usages.push(usage);
  const usageMetadata = { promptTokenCount: usage.prompt, candidatesTokenCount: usage.completion, totalTokenCount: usage.prompt + usage.completion };
  const candidate = (parts: object[], finishReason?: string) => ({ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) });
  if (!isStream) {
    const parts = tool ? [{ functionCall: { name: tool.name, args } }] : [{ text: state.text }];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ candidates: [candidate(parts, 'STOP')], usageMetadata, modelVersion: 'mock', responseId: `models${state.requests.length}` }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const event = (value: object) => res.write(`data: ${JSON.stringify(value)}\n\n`);
  if (tool) {
    event({ candidates: [candidate([{ functionCall: { name: tool.name, args } }], 'STOP')], usageMetadata });
  } else {
    const pieces = state.text.match(/.{1,6}/gs) ?? [];
    pieces.forEach((piece, i) => event({ candidates: [candidate([{ text: piece }], i === pieces.length - 1 ? 'STOP' : undefined)], usageMetadata: i === pieces.length - 1 ? usageMetadata : { promptTokenCount: usage.prompt } }));
  }
  res.end();
}

function responsesAnswer(res: http.ServerResponse, body: any, state: Omit<MockModels, 'url' | 'close'>): void {
  const { tool } = decideResponses(body);
  const args = tool ? JSON.stringify(instanceOf(tool.schema)) : '';
  const usage = { prompt: 10 + tokens(body.input), completion: Math.ceil((tool ? args.length : state.text.length) / 4) };
  state.usages.push(usage);
  const n = state.requests.length;
  const item = tool
    ? { type: 'function_call', id: `fc_models${n}`, call_id: `call_models${n}`, name: tool.name, arguments: args, status: 'completed' }
    : { type: 'message', id: `msg_models${n}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: state.text, annotations: [] }] };
  const response = (status: string, output: object[], withUsage: boolean) => ({
    id: `resp_models${n}`, object: 'response', created_at: Math.floor(Date.now() / 1000), status, model: body.model, output, error: null, incomplete_details: null,
    usage: withUsage ? { input_tokens: usage.prompt, input_tokens_details: { cached_tokens: 0 }, output_tokens: usage.completion, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: usage.prompt + usage.completion } : null,
  });
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(response('completed', [item], true)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let sequence = 0;
  const event = (type: string, fields: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
  event('response.created', { response: response('in_progress', [], false) });
  if (tool) {
    event('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } });
    for (const piece of args.match(/.{1,5}/gs) ?? []) event('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: piece });
    event('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: args });
  } else {
    event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    event('response.content_part.added', { item_id: item.id, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
    for (const piece of state.text.match(/.{1,4}/gs) ?? []) event('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: piece });
    event('response.output_text.done', { item_id: item.id, output_index: 0, content_index: 0, text: state.text });
    event('response.content_part.done', { item_id: item.id, output_index: 0, content_index: 0, part: { type: 'output_text', text: state.text, annotations: [] } });
  }
  event('response.output_item.done', { output_index: 0, item });
  event('response.completed', { response: response('completed', [item], true) });
  res.end();
}
