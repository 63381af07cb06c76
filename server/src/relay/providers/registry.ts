import { ai360Adapter } from './ai360/index.js';
import { aiProxyLibraryAdapter } from './aiproxy-library/index.js';
import { anthropicAdapter } from './anthropic/index.js';
import { awsBedrockAdapter } from './aws-bedrock/index.js';
import { aliAdapter } from './ali/index.js';
import { azureAdapter } from './azure/index.js';
import { baiduAdapter } from './baidu/index.js';
import { baiduV2Adapter } from './baidu-v2/index.js';
import { cloudflareAdapter } from './cloudflare/index.js';
import { cohereAdapter } from './cohere/index.js';
import { customAdapter } from './custom/index.js';
import { deepSeekAdapter } from './deepseek/index.js';
import { difyAdapter } from './dify/index.js';
import { fastGptAdapter } from './fastgpt/index.js';
import { geminiAdapter } from './gemini/index.js';
import { hunyuanAdapter } from './hunyuan/index.js';
import { jinaAdapter } from './jina/index.js';
import { klingAdapter } from './kling/index.js';
import { m3eAdapter } from './m3e/index.js';
import { miniMaxAdapter } from './minimax/index.js';
import { mistralAdapter } from './mistral/index.js';
import { moonshotAdapter } from './moonshot/index.js';
import { ollamaAdapter } from './ollama/index.js';
import { openAiAdapter } from './openai/index.js';
import { openRouterAdapter } from './openrouter/index.js';
import { midjourneyPlusAdapter, midjourneyProxyAdapter } from './midjourney/index.js';
import { palmAdapter } from './palm/index.js';
import { siliconCloudAdapter } from './siliconcloud/index.js';
import { sparkAdapter } from './spark/index.js';
import { sunoAdapter } from './suno/index.js';
import type { ProviderAdapter, ProviderMeta } from './types.js';
import { vertexAdapter } from './vertex/index.js';
import { volcEngineAdapter } from './volcengine/index.js';
import { xaiAdapter } from './xai/index.js';
import { xinferenceAdapter } from './xinference/index.js';
import { yiAdapter } from './yi/index.js';
import { zhipuAdapter } from './zhipu/index.js';
import { zhipuV4Adapter } from './zhipu-v4/index.js';

/** Every adapter by slug. */
export const providers = {
  openai: openAiAdapter,
  custom: customAdapter,
  openrouter: openRouterAdapter,
  moonshot: moonshotAdapter,
  yi: yiAdapter,
  siliconcloud: siliconCloudAdapter,
  mistral: mistralAdapter,
  deepseek: deepSeekAdapter,
  m3e: m3eAdapter,
  xinference: xinferenceAdapter,
  xai: xaiAdapter,
  ai360: ai360Adapter,
  zhipu: zhipuAdapter,
  'zhipu-v4': zhipuV4Adapter,
  ali: aliAdapter,
  jina: jinaAdapter,
  volcengine: volcEngineAdapter,
  ollama: ollamaAdapter,
  azure: azureAdapter,
  cohere: cohereAdapter,
  dify: difyAdapter,
  cloudflare: cloudflareAdapter,
  anthropic: anthropicAdapter,
  'aws-bedrock': awsBedrockAdapter,
  gemini: geminiAdapter,
  vertex: vertexAdapter,
  palm: palmAdapter,
  minimax: miniMaxAdapter,
  hunyuan: hunyuanAdapter,
  baidu: baiduAdapter,
  'baidu-v2': baiduV2Adapter,
  'aiproxy-library': aiProxyLibraryAdapter,
  fastgpt: fastGptAdapter,
  spark: sparkAdapter,
  suno: sunoAdapter,
  kling: klingAdapter,
  midjourney: midjourneyProxyAdapter,
  'midjourney-plus': midjourneyPlusAdapter,
} satisfies Record<string, ProviderAdapter>;

export type ProviderSlug = keyof typeof providers;

/** The one table mapping the spec's channel type numbers to adapters. */
export const channelTypeSlugs: Readonly<Record<number, ProviderSlug>> = {
  1: 'openai',
  2: 'midjourney',
  3: 'azure',
  4: 'ollama',
  5: 'midjourney-plus',
  8: 'custom',
  14: 'anthropic',
  16: 'zhipu',
  15: 'baidu',
  11: 'palm',
  17: 'ali',
  18: 'spark',
  19: 'ai360',
  20: 'openrouter',
  21: 'aiproxy-library',
  22: 'fastgpt',
  23: 'hunyuan',
  24: 'gemini',
  25: 'moonshot',
  26: 'zhipu-v4',
  31: 'yi',
  34: 'cohere',
  35: 'minimax',
  36: 'suno',
  37: 'dify',
  33: 'aws-bedrock',
  38: 'jina',
  39: 'cloudflare',
  40: 'siliconcloud',
  41: 'vertex',
  42: 'mistral',
  43: 'deepseek',
  44: 'm3e',
  45: 'volcengine',
  46: 'baidu-v2',
  47: 'xinference',
  48: 'xai',
  50: 'kling',
};

export function adapterForType(type: number): ProviderAdapter | null {
  const slug = channelTypeSlugs[type];
  return slug ? providers[slug] : null;
}

/** Channel-type metadata for the console's channel form (another module mounts the route). */
export interface ChannelTypeInfo extends ProviderMeta {
  slug: string;
  endpoints: string[];
  hasBalance: boolean;
  /** The type checks key/other/base URL on create and update (a 400 with its message). */
  validatesKey: boolean;
  /** "Fetch models" uses the provider's own list rather than OpenAI's `GET /v1/models`. */
  hasModelList: boolean;
}

export function listChannelTypes(): ChannelTypeInfo[] {
  return Object.entries(channelTypeSlugs)
    .map(([, slug]) => providers[slug] as ProviderAdapter)
    .map((adapter) => ({
      ...adapter.meta,
      slug: adapter.slug,
      endpoints: [...adapter.endpoints],
      hasBalance: adapter.fetchBalance !== undefined,
      validatesKey: adapter.validateChannel !== undefined,
      hasModelList: adapter.fetchModels !== undefined,
    }))
    .sort((a, b) => a.type - b.type);
}
