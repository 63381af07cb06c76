import { http, requestEnvelope } from '../../../lib/http';

/** GET /api/channel/test/{id}?model=: the elapsed time in seconds sits beside data. */
export async function testChannel(id: number, model?: string): Promise<number> {
  const answer = await requestEnvelope<unknown, { time: number }>(`/api/channel/test/${id}`, { query: { model: model || undefined } });
  return answer.time ?? 0;
}

export const testAllChannels = async (): Promise<string> => (await requestEnvelope<unknown>('/api/channel/test')).message;

/** GET /api/channel/update_balance/{id}/: the balance sits beside data. */
export async function updateBalance(id: number): Promise<number> {
  const answer = await requestEnvelope<unknown, { balance: number }>(`/api/channel/update_balance/${id}/`);
  return answer.balance ?? 0;
}

export const updateAllBalances = () => http.get<unknown>('/api/channel/update_balance');

export const fetchModelsOfChannel = (id: number) => http.get<string[]>(`/api/channel/fetch_models/${id}`, { silent: true });
export const fetchUpstreamModels = (body: { base_url: string; type: number; key: string; other: string }) => http.post<string[]>('/api/channel/fetch_models', body, { silent: true });
