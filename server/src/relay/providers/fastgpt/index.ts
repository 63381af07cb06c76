import { createOpenAiCompatible } from '../openai/index.js';

/**
 * FastGPT (type 22): OpenAI's chat wire under `{base}/v1`. `detail: true` would switch the stream to
 * named events, so `detail` is always false; `chatId` and `variables` from the client pass through.
 * Answers often carry no usage: the relay counts the tokens then.
 */
export const fastGptAdapter = createOpenAiCompatible({
  slug: 'fastgpt',
  type: 22,
  displayName: '知识库：FastGPT',
  defaultBaseURL: 'https://fastgpt.run/api/openapi',
  keyHint: 'FastGPT 应用密钥 fastgpt-…（旧格式 APIKey-AppId 原样填写）',
  defaultModels: ['fastgpt'],
  endpoints: ['chat'],
  prepareChatBody: (body) => {
    body.detail = false;
  },
});
