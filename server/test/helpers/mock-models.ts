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
 * Gemini, like the real one, may call several tools at once: asked to use `every tool`, it calls
 * each declared one. Asked for log probabilities (OpenAI `logprobs`, Gemini `responseLogprobs`),
 * both report them for a text answer, over tokens of up to three characters (`mockTokens`).
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
  /** Gemini only: every tool called in one answer (the prompt asked to use `every tool`). */
  tools?: Array<{ name: string; schema: any }>;
}

/** The mock's tokens: the text in pieces of up to three characters. */
export const mockTokens = (text: string): string[] => text.match(/.{1,3}/gs) ?? [];

/** The log probability the mock gives a token at a step, and its `rank`-th alternative's. */
export const mockLogprob = (step: number, rank = 0) => -0.25 * (step + 1) - rank;

/** Gemini's logprobsResult for these tokens (steps counted from `first`), `top` alternatives each. */
function geminiLogprobs(tokens: string[], first: number, top: number) {
  return {
    chosenCandidates: tokens.map((token, i) => ({ token, tokenId: first + i, logProbability: mockLogprob(first + i) })),
    topCandidates: tokens.map((token, i) => ({
      candidates: Array.from({ length: top }, (_, rank) => ({
        token: rank === 0 ? token : `${token}~${rank}`,
        tokenId: rank,
        logProbability: mockLogprob(first + i, rank),
      })),
    })),
  };
}

/** OpenAI's choice.logprobs for these tokens (steps counted from `first`), `top` alternatives each. */
function openAiLogprobs(tokens: string[], first: number, top: number) {
  const entry = (token: string, logprob: number) => ({ token, logprob, bytes: [...Buffer.from(token)] });
  return {
    content: tokens.map((token, i) => ({
      ...entry(token, mockLogprob(first + i)),
      top_logprobs: Array.from({ length: top }, (_, rank) => entry(rank === 0 ? token : `${token}~${rank}`, mockLogprob(first + i, rank))),
    })),
    refusal: null,
  };
}

function decideOpenAi(body: any): Decision {
  const tools: any[] = Array.isArray(body.tools) ? body.tools.filter((tool: any) => tool?.type === 'function') : [];
  if (tools.length === 0 || body.tool_choice === 'none') return { tool: null };
  const forced = body.tool_choice?.function?.name;
  const hasResult = (body.messages ?? []).some((message: any) => message.role === 'tool');
  const pick = forced
    ? tools.find((tool) => tool.function.name === forced)
    : body.tool_choice === 'required' || !hasResult
      ? tools[0]
      : null;
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
  const every = !hasResult && mode !== 'ANY' && JSON.stringify(body.contents ?? []).includes('every tool');
  const toolOf = (d: any) => ({ name: d.name, schema: d.parametersJsonSchema ?? d.parameters });
  return { tool: pick ? toolOf(pick) : null, ...(every ? { tools: declarations.map(toolOf) } : {}) };
}

/** Gemini's OpenAPI schema types are upper case (OBJECT, STRING): the generator reads JSON Schema. */
function jsonSchemaOf(schema: any): any {
  if (Array.isArray(schema)) return schema.map(jsonSchemaOf);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === 'type' && typeof value === 'string' ? value.toLowerCase() : jsonSchemaOf(value),
    ]),
  );
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
  const call = tool
    ? { id: `call_models${state.requests.length}`, type: 'function', function: { name: tool.name, arguments: args } }
    : null;
  const top = body.logprobs === true && !call ? (typeof body.top_logprobs === 'number' ? body.top_logprobs : 0) : null;
  if (body.stream !== true) {
    const message = call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: state.text };
    const logprobs = top === null ? null : openAiLogprobs(mockTokens(state.text), 0, top);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [{ index: 0, message, logprobs, finish_reason: call ? 'tool_calls' : 'stop' }],
        usage: openAiUsage,
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: object, finish: string | null = null, logprobs: object | null = null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, logprobs, finish_reason: finish }] })}\n\n`;
  res.write(chunk({ role: 'assistant', content: '' }));
  if (call) {
    res.write(chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: tool!.name, arguments: '' } }] }));
    for (const piece of args.match(/.{1,5}/gs) ?? []) res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  } else {
    // Each chunk is two of the mock's tokens, with their log probabilities when asked.
    const tokens = mockTokens(state.text);
    for (let i = 0; i < tokens.length; i += 2)
      res.write(
        chunk({ content: tokens.slice(i, i + 2).join('') }, null, top === null ? null : openAiLogprobs(tokens.slice(i, i + 2), i, top)),
      );
  }
  res.write(chunk({}, call ? 'tool_calls' : 'stop'));
  if (body.stream_options?.include_usage)
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage: openAiUsage })}\n\n`,
    );
  res.end('data: [DONE]\n\n');
}

function geminiAnswer(res: http.ServerResponse, body: any, isStream: boolean, shared: Omit<MockModels, 'url' | 'close'>): void {
  // JSON mode: the answer is an instance of the requested schema.
  const config = body.generationConfig ?? {};
  const schema = config.responseJsonSchema ?? config.responseSchema;
  const state =
    config.responseMimeType === 'application/json'
      ? { ...shared, text: JSON.stringify(schema ? instanceOf(jsonSchemaOf(schema)) : {}) }
      : shared;
  const decision = decideGemini(body);
  const called = decision.tools ?? (decision.tool ? [decision.tool] : []);
  const tool = called[0] ?? null;
  const calls = called.map((each) => ({ functionCall: { name: each.name, args: instanceOf(jsonSchemaOf(each.schema)) } }));
  const top = config.responseLogprobs === true && !tool ? (typeof config.logprobs === 'number' ? config.logprobs : 0) : null;
  const output = tool ? calls.map((call) => JSON.stringify(call.functionCall.args)).join('') : state.text;
  const usage = { prompt: 10 + tokens(body.contents), completion: Math.ceil(output.length / 4) };
  state.usages.push(usage);
  const usageMetadata = {
    promptTokenCount: usage.prompt,
    candidatesTokenCount: usage.completion,
    totalTokenCount: usage.prompt + usage.completion,
  };
  const candidate = (parts: object[], finishReason?: string, logprobsResult?: object) => ({
    content: { role: 'model', parts },
    index: 0,
    ...(finishReason ? { finishReason } : {}),
    ...(logprobsResult ? { logprobsResult } : {}),
  });
  if (!isStream) {
    const parts = tool ? calls : [{ text: state.text }];
    const logprobs = top === null ? undefined : geminiLogprobs(mockTokens(state.text), 0, top);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        candidates: [candidate(parts, 'STOP', logprobs)],
        usageMetadata,
        modelVersion: 'mock',
        responseId: `models${state.requests.length}`,
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const event = (value: object) => res.write(`data: ${JSON.stringify(value)}\n\n`);
  if (tool) {
    // Several calls arrive in one event, as Gemini sends parallel calls.
    event({ candidates: [candidate(calls, 'STOP')], usageMetadata });
  } else {
    // Each event is two of the mock's tokens, with their log probabilities when asked.
    const tokens = mockTokens(state.text);
    for (let i = 0; i < tokens.length; i += 2) {
      const isLast = i + 2 >= tokens.length;
      const logprobs = top === null ? undefined : geminiLogprobs(tokens.slice(i, i + 2), i, top);
      event({
        candidates: [candidate([{ text: tokens.slice(i, i + 2).join('') }], isLast ? 'STOP' : undefined, logprobs)],
        usageMetadata: isLast ? usageMetadata : { promptTokenCount: usage.prompt },
      });
    }
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
    : {
        type: 'message',
        id: `msg_models${n}`,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: state.text, annotations: [] }],
      };
  const response = (status: string, output: object[], withUsage: boolean) => ({
    id: `resp_models${n}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: body.model,
    output,
    error: null,
    incomplete_details: null,
    usage: withUsage
      ? {
          input_tokens: usage.prompt,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: usage.completion,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.prompt + usage.completion,
        }
      : null,
  });
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(response('completed', [item], true)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let sequence = 0;
  const event = (type: string, fields: object) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
  event('response.created', { response: response('in_progress', [], false) });
  if (tool) {
    event('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } });
    for (const piece of args.match(/.{1,5}/gs) ?? [])
      event('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: piece });
    event('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: args });
  } else {
    event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    event('response.content_part.added', {
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
    for (const piece of state.text.match(/.{1,4}/gs) ?? [])
      event('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: piece });
    event('response.output_text.done', { item_id: item.id, output_index: 0, content_index: 0, text: state.text });
    event('response.content_part.done', {
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: state.text, annotations: [] },
    });
  }
  event('response.output_item.done', { output_index: 0, item });
  event('response.completed', { response: response('completed', [item], true) });
  res.end();
}
