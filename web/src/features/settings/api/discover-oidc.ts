import type { OidcDiscovery } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** POST /api/oauth/oidc/discovery: the server fetches the well-known document and answers its endpoints (its refusal is shown by the caller). */
export const discoverOidc = (wellKnown: string) =>
  http.post<OidcDiscovery>('/api/oauth/oidc/discovery', { well_known: wellKnown }, { silent: true });

export const useDiscoverOidc = () => useMutation({ mutationFn: discoverOidc });
