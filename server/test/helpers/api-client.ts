import { request as sendRaw } from 'undici';

/**
 * A tiny HTTP client for API tests: keeps the session cookie, sends New-Api-User once signed in,
 * and returns status, headers and the parsed body without throwing on 4xx/5xx.
 */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class ApiClient {
  cookie = '';
  /** The pending-login cookie between the two steps of a two-factor sign-in (`login_pending=...`), or ''. */
  pendingCookie = '';
  userId: number | null = null;
  /** Extra headers sent on every call (e.g. Authorization for access-token tests). */
  headers: Record<string, string> = {};
  /**
   * The Accept-Language sent on every call, as the console sends its language: Chinese, so tests
   * check the spec's messages verbatim; null sends none (the server then answers in English).
   */
  language: string | null = 'zh-CN';

  constructor(readonly baseUrl: string) {}

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    init: { raw?: string; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...this.headers, ...init.headers };
    const cookies = [this.cookie, this.pendingCookie].filter(Boolean).join('; ');
    if (cookies) headers.cookie = cookies;
    if (this.userId !== null && headers['New-Api-User'] === undefined) headers['New-Api-User'] = String(this.userId);
    if (this.language !== null && !Object.keys(headers).some((h) => h.toLowerCase() === 'accept-language'))
      headers['accept-language'] = this.language;
    let payload: string | undefined;
    if (init.raw !== undefined) payload = init.raw;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    const hasHost = Object.keys(headers).some((h) => h.toLowerCase() === 'host');
    const response = hasHost
      ? await fetchWithHost(this.baseUrl + path, method, headers, payload)
      : await fetch(this.baseUrl + path, { method, headers, body: payload });
    const setCookie = response.headers.getSetCookie();
    for (const line of setCookie) {
      const pair = line.split(';')[0] ?? '';
      if (pair.startsWith('session=')) this.cookie = /session=(;|$)/.test(`${pair};`) && pair === 'session=' ? '' : pair;
      if (pair.startsWith('login_pending=')) this.pendingCookie = pair === 'login_pending=' ? '' : pair;
    }
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON; keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, init?: { headers?: Record<string, string> }) {
    return this.request<T>('GET', path, undefined, init);
  }
  post<T = any>(path: string, body?: unknown, init?: { raw?: string; headers?: Record<string, string> }) {
    return this.request<T>('POST', path, body, init);
  }
  put<T = any>(path: string, body?: unknown, init?: { raw?: string; headers?: Record<string, string> }) {
    return this.request<T>('PUT', path, body, init);
  }
  delete<T = any>(path: string, init?: { headers?: Record<string, string> }) {
    return this.request<T>('DELETE', path, undefined, init);
  }
}

/**
 * fetch sends the URL's host whatever Host header it is given; undici's request sends the header as
 * written, so a test can play a client that lies about the Host.
 */
async function fetchWithHost(url: string, method: string, headers: Record<string, string>, body: string | undefined): Promise<Response> {
  const res = await sendRaw(url, { method: method as 'GET', headers, body });
  const answered = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const item of [value ?? []].flat()) answered.append(name, item);
  }
  const content = await res.body.arrayBuffer();
  return new Response([204, 304].includes(res.statusCode) ? null : content, { status: res.statusCode, headers: answered });
}
