import { chatJob, completionsJob } from '../jobs/chat.js';
import { embeddingsJob, imagesJob, moderationsJob, rerankJob, speechJob } from '../jobs/inputs.js';
import type { JsonBody } from '../jobs/json-body.js';
import type { RelayJob } from '../pipeline/relay-job.js';

export type JobBuilder = (body: JsonBody) => RelayJob;

/**
 * The OpenAI-shaped JSON relay routes. Each is a Fastify route (plugin.ts) and is also served by the
 * direct lane (direct-lane.ts) for JSON bodies; `/v1/engines/:model/embeddings` only by Fastify.
 */
export const jsonRoutes: ReadonlyMap<string, JobBuilder> = new Map([
  ['/v1/chat/completions', chatJob],
  ['/v1/completions', completionsJob],
  ['/v1/embeddings', embeddingsJob],
  ['/v1/moderations', moderationsJob],
  ['/v1/images/generations', imagesJob],
  ['/v1/audio/speech', speechJob],
  ['/v1/rerank', rerankJob],
]);

/** Per-request URL values a job takes from the query (Azure's api-version). */
export function applyQueryOptions(job: RelayJob, apiVersion: unknown): void {
  if (typeof apiVersion === 'string' && apiVersion) job.requestOptions = { apiVersion };
}
