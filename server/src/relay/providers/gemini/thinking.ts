/** Gemini thinking: `-thinking[-<budget>]` / `-nothinking` model suffixes and `reasoning_effort`. */
import type { Json } from '@modelgate/shared';

export interface ThinkingChoice {
  /** The model name sent upstream (suffix removed). */
  model: string;
  thinkingConfig?: Json;
}

const effortBudgets: Record<string, number> = { minimal: 0, none: 0, low: 1024, medium: 8192, high: 24576 };

/** Pro models cannot turn thinking off; their smallest budget is 128. */
const offBudget = (model: string) => (/pro/.test(model) ? 128 : 0);
const usesLevels = (model: string) => /^gemini-3/.test(model);

function fromGoogleConfig(raw: unknown): Json | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const config = raw as Json;
  const out: Json = {};
  const budget = config.thinking_budget ?? config.thinkingBudget;
  const include = config.include_thoughts ?? config.includeThoughts;
  const level = config.thinking_level ?? config.thinkingLevel;
  if (typeof budget === 'number') out.thinkingBudget = budget;
  if (typeof include === 'boolean') out.includeThoughts = include;
  if (typeof level === 'string') out.thinkingLevel = level;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Decides the thinkingConfig from (in order) the model suffix, `extra_body.google.thinking_config`,
 * then `reasoning_effort`. No choice leaves thinking to the model's default.
 */
export function chooseThinking(requestedModel: string, body: Json): ThinkingChoice {
  const off = /^(.*)-nothinking$/.exec(requestedModel);
  if (off?.[1]) return { model: off[1], thinkingConfig: { thinkingBudget: offBudget(off[1]) } };
  const on = /^(.*)-thinking(?:-(\d+))?$/.exec(requestedModel);
  if (on?.[1]) {
    const model = on[1];
    if (usesLevels(model) && !on[2]) return { model, thinkingConfig: { includeThoughts: true, thinkingLevel: 'high' } };
    return { model, thinkingConfig: { includeThoughts: true, thinkingBudget: on[2] ? Number(on[2]) : -1 } };
  }
  const extra = body.extra_body as { google?: { thinking_config?: unknown } } | undefined;
  const google = (body.google ?? extra?.google) as { thinking_config?: unknown } | undefined;
  const explicit = fromGoogleConfig(google?.thinking_config);
  if (explicit) return { model: requestedModel, thinkingConfig: explicit };
  const effort = typeof body.reasoning_effort === 'string' ? body.reasoning_effort : '';
  if (!(effort in effortBudgets)) return { model: requestedModel };
  if (usesLevels(requestedModel)) {
    const level = effort === 'medium' || effort === 'high' ? 'high' : 'low';
    return { model: requestedModel, thinkingConfig: { includeThoughts: true, thinkingLevel: level } };
  }
  const budget = effortBudgets[effort]!;
  if (budget === 0) return { model: requestedModel, thinkingConfig: { thinkingBudget: offBudget(requestedModel) } };
  return { model: requestedModel, thinkingConfig: { includeThoughts: true, thinkingBudget: budget } };
}
