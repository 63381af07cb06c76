import { contentsToMessages } from './request-parts.js';
import { checkGeminiRequest, normalizeGeminiRequest } from './request-shape.js';
import { isStreamAction, parseModelPath } from './params.js';
import { openAiLogprobsAsk } from './logprobs.js';
import type { Json } from '@modelgate/shared';

/** Gemini schemas may use upper-case types (`OBJECT`, `STRING`); JSON schema wants lower case. */
export function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema as Json).map(([key, value]) => {
      if (key === 'type' && typeof value === 'string') return [key, value.toLowerCase()];
      if (key === 'properties' && value && typeof value === 'object') {
        return [key, Object.fromEntries(Object.entries(value as Json).map(([name, sub]) => [name, toJsonSchema(sub)]))];
      }
      if (key === 'items' || key === 'anyOf') return [key, toJsonSchema(value)];
      return [key, value];
    }),
  );
}

function toolsOf(tools: unknown): Json[] | undefined {
  const out: Json[] = [];
  for (const tool of (Array.isArray(tools) ? tools : []) as Json[]) {
    const declarations = tool.functionDeclarations as Json[] | undefined;
    for (const declaration of Array.isArray(declarations) ? declarations : []) {
      const fn: Json = { name: declaration.name };
      if (typeof declaration.description === 'string') fn.description = declaration.description;
      const parameters = declaration.parametersJsonSchema ?? declaration.parameters;
      fn.parameters = parameters ? toJsonSchema(parameters) : { type: 'object', properties: {} };
      out.push({ type: 'function', function: fn });
    }
  }
  return out.length > 0 ? out : undefined;
}

function toolChoiceOf(toolConfig: unknown): unknown {
  const config = (toolConfig as { functionCallingConfig?: { mode?: unknown; allowedFunctionNames?: unknown } } | undefined)
    ?.functionCallingConfig;
  if (!config) return undefined;
  const names = Array.isArray(config.allowedFunctionNames) ? config.allowedFunctionNames : [];
  if (config.mode === 'NONE') return 'none';
  if (config.mode === 'ANY') return names.length === 1 ? { type: 'function', function: { name: names[0] } } : 'required';
  if (config.mode === 'AUTO') return 'auto';
  return undefined;
}

function reasoningEffortOf(thinking: Json | undefined): string | undefined {
  if (!thinking) return undefined;
  if (typeof thinking.thinkingLevel === 'string') return thinking.thinkingLevel.toLowerCase() === 'high' ? 'high' : 'low';
  const budget = thinking.thinkingBudget;
  if (typeof budget !== 'number' || budget === 0) return undefined;
  if (budget < 0) return 'medium';
  return budget <= 1024 ? 'low' : budget <= 8192 ? 'medium' : 'high';
}

/**
 * A generateContent request → the canonical OpenAI chat body. The request itself is first brought to
 * one spelling of its field names, in place (request-shape.ts), and refused when malformed.
 */
export function geminiToOpenAI(body: Json, params: Record<string, string>): Json {
  normalizeGeminiRequest(body);
  checkGeminiRequest(body);
  const { model, action } = parseModelPath(params);
  const messages: Json[] = [];
  const system = body.systemInstruction as { parts?: Json[] } | undefined;
  const systemText = (system?.parts ?? []).map((part) => (typeof part.text === 'string' ? part.text : '')).join('\n');
  if (systemText) messages.push({ role: 'system', content: systemText });
  messages.push(...contentsToMessages(body.contents));
  const out: Json = { model, messages };
  const config = (body.generationConfig ?? {}) as Json;
  const copy: Array<[string, string]> = [
    ['temperature', 'temperature'],
    ['topP', 'top_p'],
    ['topK', 'top_k'],
    ['maxOutputTokens', 'max_tokens'],
    ['candidateCount', 'n'],
    ['presencePenalty', 'presence_penalty'],
    ['frequencyPenalty', 'frequency_penalty'],
    ['seed', 'seed'],
  ];
  for (const [from, to] of copy) if (typeof config[from] === 'number') out[to] = config[from];
  if (Array.isArray(config.stopSequences) && config.stopSequences.length > 0) out.stop = config.stopSequences;
  Object.assign(out, openAiLogprobsAsk(config));
  if (config.responseMimeType === 'application/json') {
    const schema = config.responseJsonSchema ?? config.responseSchema;
    out.response_format = schema
      ? { type: 'json_schema', json_schema: { name: 'response', schema: toJsonSchema(schema) } }
      : { type: 'json_object' };
  }
  const effort = reasoningEffortOf(config.thinkingConfig as Json | undefined);
  if (effort) out.reasoning_effort = effort;
  const tools = toolsOf(body.tools);
  if (tools) {
    out.tools = tools;
    const choice = toolChoiceOf(body.toolConfig);
    if (choice) out.tool_choice = choice;
  }
  const isStream = isStreamAction(action);
  out.stream = isStream;
  if (isStream) out.stream_options = { include_usage: true };
  return out;
}
