import { balanceAmount, balanceObject, jsonBalance } from '../openai/balance.js';
import { createOpenAiCompatible } from '../openai/index.js';

export const siliconCloudAdapter = createOpenAiCompatible({
  slug: 'siliconcloud',
  type: 40,
  displayName: 'SiliconCloud',
  defaultBaseURL: 'https://api.siliconflow.cn',
  defaultModels: ['deepseek-ai/DeepSeek-V3', 'Qwen/Qwen2.5-72B-Instruct', 'BAAI/bge-m3', 'BAAI/bge-reranker-v2-m3'],
  supportsStreamUsage: true,
  fetchBalance: jsonBalance('/v1/user/info', (json) => balanceAmount(balanceObject(json.data).totalBalance)),
});
