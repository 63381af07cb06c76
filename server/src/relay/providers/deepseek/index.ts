import { jsonBalance } from '../openai/balance.js';
import { createOpenAiCompatible } from '../openai/index.js';

/** DeepSeek reports prompt_cache_hit_tokens (read as cached tokens by the shared usage reader). */
export const deepSeekAdapter = createOpenAiCompatible({
  slug: 'deepseek', type: 43, displayName: 'DeepSeek', defaultBaseURL: 'https://api.deepseek.com',
  defaultModels: ['deepseek-chat', 'deepseek-reasoner'], endpoints: ['chat', 'completions'],
  supportsStreamUsage: true,
  fetchBalance: jsonBalance('/user/balance', (json) => {
    const infos = (json.balance_infos ?? []) as Array<{ currency?: string; total_balance?: string }>;
    const usd = infos.find((info) => info.currency === 'USD');
    const cny = infos.find((info) => info.currency === 'CNY');
    return usd ? Number(usd.total_balance ?? 0) : Number(cny?.total_balance ?? 0) / 7.3;
  }),
});
