import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** Public presentation options (home page content, about, notice); empty when unset or unavailable. */
function fetchContent(path: string) {
  return http.get<string>(path, { silent: true, noAuthRedirect: true }).catch(() => '');
}

export const useHomePageContent = () => useQuery({ queryKey: ['content', 'home'], queryFn: () => fetchContent('/api/home_page_content') });
export const useAboutContent = () => useQuery({ queryKey: ['content', 'about'], queryFn: () => fetchContent('/api/about') });
export const useNotice = () => useQuery({ queryKey: ['content', 'notice'], queryFn: () => fetchContent('/api/notice') });
