import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** One field the channel form renders for a type (server/src/relay/providers metadata). */
export interface ChannelTypeField {
  name: 'other' | 'openai_organization' | 'base_url';
  label: string;
  placeholder?: string;
  required?: boolean;
}

export interface ChannelType {
  type: number;
  slug: string;
  displayName: string;
  keyHint: string;
  defaultBaseURL: string;
  extraFields: ChannelTypeField[];
  defaultModels: string[];
  endpoints: string[];
  hasBalance: boolean;
}

export const fetchChannelTypes = () => http.get<ChannelType[]>('/api/channel/types');
export const useChannelTypes = () => useQuery({ queryKey: ['channel-types'], queryFn: fetchChannelTypes, staleTime: Infinity });

export const fetchGroups = () => http.get<string[]>('/api/group/');
export const useGroups = () => useQuery({ queryKey: ['groups'], queryFn: fetchGroups, staleTime: 60_000 });

/** Every model name any channel offers (the filter and the form's model picker). */
export const fetchAllModels = () => http.get<Array<{ id: string }>>('/api/channel/models');
export const useAllModels = () => useQuery({ queryKey: ['channel-models'], queryFn: fetchAllModels, staleTime: 60_000 });
