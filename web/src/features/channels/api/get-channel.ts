import type { Channel } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** GET /api/channel/:id: the channel for the editor, without its key. */
export const fetchChannel = (id: number) => http.get<Channel>(`/api/channel/${id}`);

export const useChannel = (id: number | null) =>
  useQuery({ queryKey: channelKeys.one(id ?? 0), queryFn: () => fetchChannel(id!), enabled: id !== null, gcTime: 0 });
