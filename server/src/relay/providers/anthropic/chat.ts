import type { AdapterOptions } from '../types.js';
import { checkContentParts } from '../shared/content-parts.js';
import { refuseUnhonoured } from '../shared/unhonoured-params.js';
import { convertMessages } from './chat-messages.js';
import { outputFormatOf } from './output-format.js';
import type { Json } from '@modelgate/shared';

/** Models whose output limit is 4096: claude-2.x, claude-instant, and the first Claude 3 trio. */
const legacyModel = /^claude-(2|instant|3-(haiku|opus|sonnet))/;

/** claude.default_max_tokens by exact model, then 4096 for legacy models, then its `default` (8192). */
export function defaultMaxTokens(model: string, options: AdapterOptions): number {
  let table: Record<string, unknown> = {};
  try {
    table = options.json<Record<string, unknown>>('claude.default_max_tokens') ?? {};
  } catch {
    table = {};
  }
  const exact = table[model];
  if (typeof exact === 'number' && exact > 0) return exact;
  if (legacyModel.test(model)) return 4096;
  const fallback = table.default;
  return typeof fallback === 'number' && fallback > 0 ? fallback : 8192;
}

/** The canonical content parts Claude takes (audio it cannot). */
const claudeParts = new Set(['text', 'input_text', 'refusal', 'image_url', 'file']);

/** reasoning_effort → a thinking budget (tokens); `none` turns thinking off. */
const effortBudgets: Record<string, number> = { minimal: 1024, low: 1024, medium: 4096, high: 16384 };

function toolsOf(tools: unknown): Json[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  const converted = (tools as Json[])
    .filter((tool) => tool && (tool.type === 'function' || tool.function))
    .map((tool) => {
      const fn = (tool.function ?? {}) as Json;
      const out: Json = { name: fn.name, input_schema: fn.parameters ?? { type: 'object', properties: {} } };
      if (typeof fn.description === 'string') out.description = fn.description;
      return out;
    });
  return converted.length > 0 ? converted : undefined;
}

function toolChoiceOf(choice: unknown, parallel: unknown): Json | undefined {
  let out: Json | undefined;
  if (choice === 'auto') out = { type: 'auto' };
  else if (choice === 'none') out = { type: 'none' };
  else if (choice === 'required') out = { type: 'any' };
  else if (choice && typeof choice === 'object') {
    const name = ((choice as Json).function as Json | undefined)?.name;
    if (typeof name === 'string') out = { type: 'tool', name };
  }
  if (parallel === false && out?.type !== 'none') out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}

const stopSequencesOf = (stop: unknown): string[] | undefined => {
  const list = typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop.filter((s): s is string => typeof s === 'string') : [];
  return list.length > 0 ? list : undefined;
};

/**
 * The canonical OpenAI chat body → a Claude Messages body (with `model`; Bedrock removes it).
 * `model` is the upstream model; a `-thinking` suffix turns on the thinking adapter when enabled.
 */
export function openAiToClaude(body: Json, model: string, options: AdapterOptions): Json {
  refuseUnhonoured(body, 'Claude', { n: true, logprobs: true });
  checkContentParts(body.messages, 'Claude', claudeParts);
  let upstreamModel = model;
  const isThinkingSuffix = model.endsWith('-thinking') && options.bool('claude.thinking_adapter_enabled');
  if (isThinkingSuffix) upstreamModel = model.slice(0, -'-thinking'.length);

  const { system, messages } = convertMessages(body.messages);
  const requested = body.max_completion_tokens ?? body.max_tokens;
  let maxTokens = typeof requested === 'number' && requested > 0 ? Math.floor(requested) : defaultMaxTokens(upstreamModel, options);
  const out: Json = { model: upstreamModel, messages, max_tokens: maxTokens };
  if (system.length > 0) out.system = system;
  const stopSequences = stopSequencesOf(body.stop);
  if (stopSequences) out.stop_sequences = stopSequences;
  for (const [from, to] of [
    ['temperature', 'temperature'],
    ['top_p', 'top_p'],
    ['top_k', 'top_k'],
  ] as const) {
    if (typeof body[from] === 'number') out[to] = body[from];
  }
  const tools = toolsOf(body.tools);
  if (tools) out.tools = tools;
  const toolChoice = tools ? toolChoiceOf(body.tool_choice, body.parallel_tool_calls) : undefined;
  if (toolChoice) out.tool_choice = toolChoice;
  if (body.stream === true) out.stream = true;
  if (typeof body.user === 'string' && body.user) out.metadata = { user_id: body.user };
  // A schema the model takes itself (jsonAsTool left it a response_format): structured outputs.
  const outputFormat = outputFormatOf(body.response_format);
  if (outputFormat) out.output_config = { format: outputFormat };

  let budget = 0;
  if (isThinkingSuffix) {
    budget = Math.floor(maxTokens * options.number('claude.thinking_adapter_budget_tokens_percentage'));
  } else if (typeof body.reasoning_effort === 'string' && effortBudgets[body.reasoning_effort] !== undefined) {
    budget = effortBudgets[body.reasoning_effort] ?? 0;
  }
  if (budget > 0) {
    budget = Math.max(1024, budget);
    // Claude needs max_tokens > budget_tokens (max_tokens counts the thinking): keep the answer's room.
    if (budget >= maxTokens) out.max_tokens = maxTokens = budget + maxTokens;
    out.thinking = { type: 'enabled', budget_tokens: budget };
    // Thinking allows no temperature or top_k, and top_p only from 0.95.
    delete out.temperature;
    delete out.top_k;
    if (typeof out.top_p === 'number' && out.top_p < 0.95) delete out.top_p;
  }
  return out;
}
