import type { OAuthCallbackAnswer } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { requestEnvelope } from '../../../lib/http';
import type { OAuthProvider } from '../../../lib/oauth';

/**
 * GET /api/oauth/:provider, the callback exchange: the envelope's message matters here ('bind'), so
 * the whole envelope is answered. The provider's `iss` goes along (OIDC checks it); a signed-in
 * browser's session makes the server bind instead of sign in.
 */
export const exchangeOAuthCode = ({ provider, ...query }: { provider: OAuthProvider; code: string; state: string; iss?: string }) =>
  requestEnvelope<OAuthCallbackAnswer>(`/api/oauth/${provider}`, { silent: true, noAuthRedirect: true, query });

export const useExchangeOAuthCode = () => useMutation({ mutationFn: exchangeOAuthCode });
