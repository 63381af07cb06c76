import type { ChannelModels } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** GET /api/channel/models: every model name any channel offers (the filter and the form's model picker). */
export const fetchAllModels = () => http.get<ChannelModels>('/api/channel/models');

export const useAllModels = () => useQuery({ queryKey: channelKeys.models, queryFn: fetchAllModels, staleTime: 60_000 });
