import { z } from 'zod';
import { noData } from '../envelope.js';
import { loginAnswerSchema } from './users.js';

/** A one-use state for an authorize redirect (GET /api/oauth/state); the same value is set as an HttpOnly cookie. */
export const oauthStateSchema = z.string();

/** A redirect provider's callback (GET /api/oauth/:provider): null when a signed-in user bound the account, else a sign-in's first step. */
export const oauthCallbackSchema = z.union([noData, loginAnswerSchema]);
export type OAuthCallbackAnswer = z.infer<typeof oauthCallbackSchema>;

/** The endpoints an OIDC discovery document names (POST /api/oauth/oidc/discovery); '' where the document has none. */
export const oidcDiscoverySchema = z.strictObject({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  userinfo_endpoint: z.string(),
});
export type OidcDiscovery = z.infer<typeof oidcDiscoverySchema>;
