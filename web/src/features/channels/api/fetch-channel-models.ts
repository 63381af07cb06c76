import { http } from '../../../lib/http';

/** GET /api/channel/fetch_models/:id: the models a saved channel's provider lists (with its stored key). */
export const fetchModelsOfChannel = (id: number) => http.get<string[]>(`/api/channel/fetch_models/${id}`, { silent: true });
