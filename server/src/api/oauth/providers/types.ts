import type { FastifyBaseLogger } from 'fastify';

export type ProviderName = 'github' | 'oidc' | 'linuxdo' | 'wechat' | 'telegram';

/** A third-party account as read from its provider; `externalId` is what the users column stores. */
export interface ProviderAccount {
  provider: ProviderName;
  externalId: string;
  /** The provider's user name, the seed of a new user's username. */
  username: string;
  displayName: string;
  email: string;
}

/** What a code exchange needs besides the code. */
export interface ExchangeContext {
  log: FastifyBaseLogger;
  /** Where the provider sent the browser back to (`{origin}/oauth/{provider}`). */
  redirectUri: string;
  /** The state of the authorization response (already checked against the browser's cookie). */
  state: string;
  /** The `iss` parameter of the authorization response, when the provider sends one (RFC 9207). */
  issuer: string;
}
