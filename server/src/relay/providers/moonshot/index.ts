import { balanceAmount, balanceObject, cnyPerUsd, jsonBalance } from '../openai/balance.js';
import { createOpenAiCompatible } from '../openai/index.js';

/** Moonshot streams its usage in choices[0].usage of the last chunk. */
export const moonshotAdapter = createOpenAiCompatible({
  slug: 'moonshot',
  type: 25,
  displayName: 'Moonshot',
  defaultBaseURL: 'https://api.moonshot.cn',
  defaultModels: ['kimi-k2-0905-preview', 'moonshot-v1-8k', 'moonshot-v1-32k', 'moonshot-v1-128k'],
  supportsStreamUsage: true,
  isUsageInChoice: true,
  fetchBalance: jsonBalance('/v1/users/me/balance', (json) => balanceAmount(balanceObject(json.data).available_balance) / cnyPerUsd),
});
