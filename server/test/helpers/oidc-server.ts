import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID Provider (the `oidc-provider` package) on a free loopback port: discovery,
 * authorization with its own development login and consent pages (any login name is accepted
 * and becomes the subject), token endpoint, signed ID tokens, JWKS and UserInfo.
 */
export interface OidcServer {
  issuer: string;
  wellKnown: string;
  provider: Provider;
  /** Lifetime of the authorization codes issued from now on (seconds; 60 by default). */
  codeTtl: { seconds: number };
  close(): Promise<void>;
}

export interface OidcServerOptions {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** Profile claims per login name; a login not listed gets preferred_username = login. */
  accounts?: Record<string, { preferred_username?: string; name?: string; email?: string }>;
}

export async function startOidcServer(options: OidcServerOptions): Promise<OidcServer> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const codeTtl = { seconds: 60 };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    cookies: { keys: ['oidc-test-cookie-key-0123456789'] },
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email'] },
    pkce: { required: () => false },
    ttl: { AccessToken: 600, AuthorizationCode: () => codeTtl.seconds, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    async findAccount(_ctx, id) {
      const profile = options.accounts?.[id] ?? {};
      return {
        accountId: id,
        async claims() {
          return {
            sub: id,
            preferred_username: profile.preferred_username ?? id,
            name: profile.name ?? id,
            email: profile.email ?? `${id}@idp.test`,
          };
        },
      };
    },
  });
  const handle = provider.callback();
  // Koa answers its own errors (ctx.onerror), so the promise it returns never rejects.
  server.on('request', (req, res) => {
    void handle(req, res);
  });
  return {
    issuer,
    wellKnown: `${issuer}/.well-known/openid-configuration`,
    provider,
    codeTtl,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Goes through the provider's own login and consent pages as a browser would (following redirects,
 * keeping cookies, posting the forms) and returns the redirect back to the client with code, state
 * and iss. API tests use it; the browser journey clicks the same pages in Chromium.
 */
export async function authorizeAs(authorizeUrl: string, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = authorizeUrl;
  let form: URLSearchParams | null = null;
  const redirectUri = new URL(authorizeUrl).searchParams.get('redirect_uri') ?? '';
  for (let step = 0; step < 12; step++) {
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form?.toString(),
    });
    form = null;
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.toString().startsWith(redirectUri)) return next;
      url = next.toString();
      continue;
    }
    const html = await response.text();
    if (html.includes('name="prompt" value="login"')) form = new URLSearchParams({ prompt: 'login', login, password: 'any' });
    else if (html.includes('name="prompt" value="consent"')) form = new URLSearchParams({ prompt: 'consent' });
    else throw new Error(`unexpected page from the OpenID provider (${response.status}): ${html.slice(0, 300)}`);
  }
  throw new Error('the OpenID provider never redirected back');
}
