import type { FetchUpstreamModelsPayload } from '@modelgate/shared';
import { http } from '../../../lib/http';

/** POST /api/channel/fetch_models: the models an unsaved channel's provider lists. */
export const fetchUpstreamModels = (body: FetchUpstreamModelsPayload) =>
  http.post<string[]>('/api/channel/fetch_models', body, { silent: true });
