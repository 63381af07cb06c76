import { useMutation, useQueryClient } from '@tanstack/react-query';
import { requestEnvelope } from '../../../lib/http';
import { channelKeys } from './keys';

/** GET /api/channel/test/:id?model=: the test's seconds, which sit beside data (the list refreshes: the test stores its time). */
export async function testChannel({ id, model }: { id: number; model?: string }): Promise<number> {
  const answer = await requestEnvelope<null, { time: number }>(`/api/channel/test/${id}`, { query: { model: model || undefined } });
  return answer.time ?? 0;
}

export function useTestChannel() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: testChannel, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
