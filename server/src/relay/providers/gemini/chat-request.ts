import { checkContentParts } from '../shared/content-parts.js';
import type { AdapterOptions } from '../types.js';
import { logprobsConfig } from './logprobs.js';
import { convertMessages } from './messages.js';
import { cleanParameters, cleanSchema } from './schema.js';
import { safetySettingsFor } from './settings.js';
import { chooseThinking } from './thinking.js';
import type { Json } from '@modelgate/shared';

function convertTools(tools: unknown): Json[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  const declarations: Json[] = [];
  const extras: Json[] = [];
  for (const tool of tools as Json[]) {
    const fn = tool.function as Json | undefined;
    if (tool.type === 'function' && fn && typeof fn.name === 'string') {
      const declaration: Json = { name: fn.name };
      if (typeof fn.description === 'string') declaration.description = fn.description;
      const parameters = cleanParameters(fn.parameters);
      if (parameters) declaration.parameters = parameters;
      declarations.push(declaration);
    } else if (tool.type === 'google_search' || tool.type === 'web_search') {
      extras.push({ googleSearch: {} });
    } else if (tool.type === 'code_execution') {
      extras.push({ codeExecution: {} });
    }
  }
  const out = declarations.length > 0 ? [{ functionDeclarations: declarations }, ...extras] : extras;
  return out.length > 0 ? out : undefined;
}

function convertToolChoice(choice: unknown): Json | undefined {
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  const name = (choice as { function?: { name?: unknown } } | undefined)?.function?.name;
  if (typeof name === 'string') return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [name] } };
  return undefined;
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** Models of `gemini.supported_imagine_models` answer with images too (responseModalities). */
function isImageModel(options: AdapterOptions, model: string): boolean {
  try {
    const models = options.json<unknown>('gemini.supported_imagine_models');
    return Array.isArray(models) && models.includes(model);
  } catch {
    return false;
  }
}

function generationConfig(body: Json, thinkingConfig: Json | undefined): Json {
  // n maps to candidateCount (each candidate a choice); logprobs to responseLogprobs (logprobs.ts).
  const config: Json = {
    temperature: num(body.temperature),
    topP: num(body.top_p),
    topK: num(body.top_k),
    maxOutputTokens: num(body.max_completion_tokens) ?? num(body.max_tokens),
    candidateCount: num(body.n),
    presencePenalty: num(body.presence_penalty),
    frequencyPenalty: num(body.frequency_penalty),
    seed: num(body.seed),
    ...logprobsConfig(body),
  };
  if (typeof body.stop === 'string') config.stopSequences = [body.stop];
  else if (Array.isArray(body.stop) && body.stop.length > 0) config.stopSequences = body.stop;
  const format = body.response_format as { type?: unknown; json_schema?: { schema?: unknown } } | undefined;
  if (format?.type === 'json_object' || format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    if (format.type === 'json_schema' && format.json_schema?.schema) config.responseSchema = cleanSchema(format.json_schema.schema);
  }
  if (thinkingConfig) config.thinkingConfig = thinkingConfig;
  return Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
}

/** The canonical content parts Gemini takes. */
const geminiParts = new Set(['text', 'input_text', 'refusal', 'image_url', 'input_audio', 'file']);

/** generationConfig.stopSequences takes up to 5. */
export const geminiStopSequenceLimit = 5;

/** The canonical OpenAI chat body → a Gemini generateContent body, and the model to put in the URL. */
export function toGeminiRequest(body: Json, upstreamModel: string, options: AdapterOptions): { model: string; request: Json } {
  checkContentParts(body.messages, 'Gemini', geminiParts);
  const { model, thinkingConfig } = chooseThinking(upstreamModel, body);
  const { contents, systemInstruction } = convertMessages(body.messages, { needsThoughtSignature: /^gemini-3/.test(model) });
  const request: Json = { contents };
  if (systemInstruction) request.systemInstruction = systemInstruction;
  const tools = convertTools(body.tools);
  if (tools) request.tools = tools;
  const toolConfig = convertToolChoice(body.tool_choice);
  if (toolConfig && tools) request.toolConfig = toolConfig;
  request.safetySettings = safetySettingsFor(options, model);
  const config = generationConfig(body, thinkingConfig);
  if (isImageModel(options, model)) config.responseModalities = ['TEXT', 'IMAGE'];
  if (Object.keys(config).length > 0) request.generationConfig = config;
  return { model, request };
}
