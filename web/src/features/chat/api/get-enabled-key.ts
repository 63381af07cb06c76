import { TokenStatus, type Page, type Token } from '@modelgate/shared';
import { withKeyPrefix } from '../../../lib/chat-links';
import { http } from '../../../lib/http';

/** GET /api/token/?p=1&size=100: the first enabled token's key with the sk- prefix, or null. */
export async function findEnabledKey(): Promise<string | null> {
  const page = await http.get<Page<Token>>('/api/token/', { query: { p: 1, size: 100 } });
  const token = (page.items ?? []).find((item) => item.status === TokenStatus.enabled);
  return token ? withKeyPrefix(token.key) : null;
}
