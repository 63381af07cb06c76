import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';

export interface GroupInfo {
  desc: string;
  /** A number, or for `auto` the word 自动 (its ratio is the group each call uses). */
  ratio: number | string;
}

/** GET /api/user/self/groups: the groups the user may pick, with description and ratio. */
export const useSelfGroups = () => useQuery({ queryKey: ['playground', 'groups'], queryFn: () => http.get<Record<string, GroupInfo>>('/api/user/self/groups') });

/** GET /api/user/models: model names the user's group can use. */
export const useUserModels = () => useQuery({ queryKey: ['playground', 'models'], queryFn: () => http.get<string[]>('/api/user/models') });
