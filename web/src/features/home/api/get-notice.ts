import { useQuery } from '@tanstack/react-query';
import { fetchContent } from './fetch-content';
import { contentKeys } from './keys';

/** GET /api/notice: the notice shown once on the home page. */
export const useNotice = () => useQuery({ queryKey: contentKeys.notice, queryFn: () => fetchContent('/api/notice') });
