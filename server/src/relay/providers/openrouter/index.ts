import { balanceAmount, balanceObject, jsonBalance } from '../openai/balance.js';
import { createOpenAiCompatible } from '../openai/index.js';

export const openRouterAdapter = createOpenAiCompatible({
  slug: 'openrouter',
  type: 20,
  displayName: 'OpenRouter',
  defaultBaseURL: 'https://openrouter.ai/api',
  keyHint: 'sk-or-...',
  extraHeaders: { 'HTTP-Referer': 'https://github.com/modelgate', 'X-Title': 'ModelGate' },
  defaultModels: ['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4', 'google/gemini-2.5-flash'],
  fetchBalance: jsonBalance('/v1/credits', (json) => {
    const data = balanceObject(json.data);
    return balanceAmount(data.total_credits) - balanceAmount(data.total_usage);
  }),
});
