import { describe, expect, it } from 'vitest';
import { baseStatus } from '../test/render-route';
import { authorizeUrl } from './oauth';
import type { PlatformStatus } from './status';

describe('authorize URLs', () => {
  it('sends the OIDC provider the ServerAddress callback, not the origin the page was opened on', () => {
    const status = {
      ...baseStatus,
      server_address: 'https://gate.example.com/',
      oidc_authorization_endpoint: 'https://idp.example.com/auth',
      oidc_client_id: 'mg',
    } as unknown as PlatformStatus;
    const url = new URL(authorizeUrl('oidc', status, 'state-1'));
    expect(window.location.origin).not.toBe('https://gate.example.com');
    expect(url.searchParams.get('redirect_uri')).toBe('https://gate.example.com/oauth/oidc');
    expect(url.searchParams.get('state')).toBe('state-1');
  });
});
