import { useQuery } from '@tanstack/react-query';
import { fetchContent } from './fetch-content';
import { contentKeys } from './keys';

/** GET /api/about: Markdown, HTML or a link to frame. */
export const useAboutContent = () => useQuery({ queryKey: contentKeys.about, queryFn: () => fetchContent('/api/about') });
