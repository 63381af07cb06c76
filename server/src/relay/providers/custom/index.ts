import { fetchDashboardBalance } from '../openai/balance.js';
import { createOpenAiCompatible } from '../openai/index.js';

/** Type 8: the base URL is the complete endpoint URL; `{model}` in it is replaced by the model. */
export const customAdapter = createOpenAiCompatible({
  slug: 'custom',
  type: 8,
  displayName: '自定义渠道',
  defaultBaseURL: '',
  keyHint: '请输入 API Key（Bearer）',
  extraFields: [
    {
      name: 'base_url',
      label: '完整的接口地址，支持 {model} 变量',
      required: true,
      placeholder: 'https://api.example.com/v1/chat/completions',
    },
  ],
  isFullUrl: true,
  supportsStreamUsage: true,
  fetchBalance: fetchDashboardBalance,
});
