import { useMutation, useQueryClient } from '@tanstack/react-query';
import { requestEnvelope } from '../../../lib/http';
import { channelKeys } from './keys';

/** GET /api/channel/test: starts testing every channel in the background; answers the server's message. */
export const testAllChannels = async (): Promise<string> => (await requestEnvelope<null>('/api/channel/test')).message;

export function useTestAllChannels() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: testAllChannels, onSettled: () => queryClient.invalidateQueries({ queryKey: channelKeys.all }) });
}
