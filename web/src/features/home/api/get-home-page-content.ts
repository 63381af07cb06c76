import { useQuery } from '@tanstack/react-query';
import { fetchContent } from './fetch-content';
import { contentKeys } from './keys';

/** GET /api/home_page_content: Markdown, HTML or a link to frame. */
export const useHomePageContent = () => useQuery({ queryKey: contentKeys.home, queryFn: () => fetchContent('/api/home_page_content') });
