import { balanceAmount, balanceObject, cnyPerUsd, jsonBalance, unreadableBalance } from '../openai/balance.js';
import { createOpenAiCompatible } from '../openai/index.js';

/** DeepSeek reports prompt_cache_hit_tokens (read as cached tokens by the shared usage reader). */
export const deepSeekAdapter = createOpenAiCompatible({
  slug: 'deepseek',
  type: 43,
  displayName: 'DeepSeek',
  defaultBaseURL: 'https://api.deepseek.com',
  defaultModels: ['deepseek-chat', 'deepseek-reasoner'],
  endpoints: ['chat', 'completions'],
  supportsStreamUsage: true,
  fetchBalance: jsonBalance('/user/balance', (json) => {
    if (!Array.isArray(json.balance_infos)) throw new Error(unreadableBalance);
    const infos = json.balance_infos.map(balanceObject);
    const usd = infos.find((info) => info.currency === 'USD');
    if (usd) return balanceAmount(usd.total_balance);
    const cny = infos.find((info) => info.currency === 'CNY');
    if (cny) return balanceAmount(cny.total_balance) / cnyPerUsd;
    throw new Error(unreadableBalance);
  }),
});
