import type { ChannelType } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** GET /api/channel/types: each type's form metadata in the viewer's language. */
export const fetchChannelTypes = () => http.get<ChannelType[]>('/api/channel/types');

export const useChannelTypes = () => useQuery({ queryKey: channelKeys.types, queryFn: fetchChannelTypes, staleTime: Infinity });
