import type { Dispatcher } from 'undici';
import type { Usage } from '../billing/quota.js';

/** The relay endpoints a provider may serve. */
export type RelayEndpoint =
  | 'chat' | 'completions' | 'embeddings' | 'moderations' | 'images'
  | 'speech' | 'transcriptions' | 'translations' | 'rerank';

/** What an adapter is given to reach the upstream; it never sees a channel row. */
export interface UpstreamTarget {
  baseURL: string;
  key: string;
  /** Extra headers (organization, per-provider extras) decided by the caller. */
  headers: Record<string, string>;
  /** The channel's `other` field (api-version, region, ...), as given. */
  other: string;
  dispatcher: Dispatcher;
}

/** Field the console renders on the channel form for this type. */
export interface ExtraField {
  name: 'other' | 'openai_organization' | 'base_url';
  label: string;
  placeholder?: string;
  required?: boolean;
}

export interface ProviderMeta {
  /** Channel type number of the product spec. */
  type: number;
  displayName: string;
  keyHint: string;
  defaultBaseURL: string;
  extraFields: ExtraField[];
  defaultModels: string[];
}

/** Result of looking at one parsed stream event. */
export interface ChunkVerdict {
  /** Text the event adds to the completion (for counting when usage is missing). */
  text: string;
  /** Usage carried by this event, if any. */
  usage: Usage | null;
  /** True when the event only carries usage (OpenAI's final `choices: []` chunk). */
  isUsageOnly: boolean;
  /** True when the adapter changed the chunk object, so it must be re-serialized. */
  isModified: boolean;
}

/** Stateful per-request transform applied to each parsed SSE data event. */
export interface ChunkTransform {
  onChunk(chunk: Record<string, unknown>): ChunkVerdict;
}

export interface ProviderAdapter {
  slug: string;
  meta: ProviderMeta;
  endpoints: ReadonlySet<RelayEndpoint>;
  api: {
    url(endpoint: RelayEndpoint | 'models', target: UpstreamTarget, model: string): string;
    headers(target: UpstreamTarget): Record<string, string>;
  };
  chat: {
    /** Adapts the OpenAI-shaped body in place for this provider. */
    prepareBody(body: Record<string, unknown>): void;
    readUsage(response: Record<string, unknown>): Usage | null;
  };
  chatStream: {
    /** Whether `stream_options.include_usage` may be sent upstream. */
    supportsStreamUsage: boolean;
    createTransform(): ChunkTransform;
  };
  embeddings: { readUsage(response: Record<string, unknown>): Usage | null };
  errors: { parse(status: number, bodyText: string): { message: string; code: string | null } };
  /** Remaining balance in US$ (update_balance), when the provider exposes it. */
  fetchBalance?(target: UpstreamTarget): Promise<number>;
}
