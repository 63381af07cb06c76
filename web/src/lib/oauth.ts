import { fetchOAuthState } from './api/oauth-state';
import type { PlatformStatus } from './status';
import { readString } from './storage-keys';

export type OAuthProvider = 'github' | 'oidc' | 'linuxdo';

export function authorizeUrl(provider: OAuthProvider, status: PlatformStatus, state: string): string {
  if (provider === 'github') {
    return `https://github.com/login/oauth/authorize?client_id=${encodeURIComponent(status.github_client_id)}&state=${encodeURIComponent(state)}&scope=user:email`;
  }
  if (provider === 'linuxdo') {
    return `https://connect.linux.do/oauth2/authorize?response_type=code&client_id=${encodeURIComponent(status.linuxdo_client_id)}&state=${encodeURIComponent(state)}`;
  }
  const url = new URL(status.oidc_authorization_endpoint);
  url.searchParams.set('client_id', status.oidc_client_id);
  // The server exchanges the code with {ServerAddress}/oauth/oidc; the provider wants the same URI here.
  url.searchParams.set('redirect_uri', `${(status.server_address ?? '').replace(/\/+$/, '')}/oauth/oidc`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', 'openid profile email');
  url.searchParams.set('state', state);
  return url.toString();
}

/** Fetches a state (with the stored invite code) and goes to the provider's authorize page. */
export async function startOAuth(provider: OAuthProvider, status: PlatformStatus): Promise<void> {
  try {
    const state = await fetchOAuthState(readString('aff') || undefined);
    window.location.assign(authorizeUrl(provider, status, state));
  } catch {
    // shown by the http client
  }
}
