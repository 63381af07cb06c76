/** A signed-in API session (cookie + New-Api-User), as the console holds one; `base` gives the server's URL. */
export class Session {
  cookie = '';
  userId = 0;

  constructor(private readonly base: () => string) {}

  async call<T = any>(method: string, url: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.cookie) headers.cookie = this.cookie;
    if (this.userId) headers['New-Api-User'] = String(this.userId);
    const response = await fetch(this.base() + url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith('session='));
    if (cookie) this.cookie = cookie.split(';')[0]!;
    const json = (await response.json()) as { success: boolean; message: string; data: T };
    if (!json.success) throw new Error(`${method} ${url}: ${json.message}`);
    return json.data;
  }

  async login(username: string, password: string): Promise<void> {
    this.userId = (await this.call<{ id: number }>('POST', '/api/user/login', { username, password })).id;
  }
}
