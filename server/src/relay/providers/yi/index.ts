import { createOpenAiCompatible } from '../openai/index.js';

export const yiAdapter = createOpenAiCompatible({
  slug: 'yi',
  type: 31,
  displayName: '零一万物',
  defaultBaseURL: 'https://api.lingyiwanwu.com',
  defaultModels: ['yi-lightning', 'yi-large', 'yi-medium'],
  endpoints: ['chat'],
});
