import { http } from '../../../lib/http';

/** A public presentation option's text (home page content, about, notice); empty when unset or unavailable. */
export const fetchContent = (path: '/api/home_page_content' | '/api/about' | '/api/notice') =>
  http.get<string>(path, { silent: true, noAuthRedirect: true }).catch(() => '');
