import i18n, { currentLanguage } from './i18n';
import { showError, showInfo } from './feedback';
import { userStore } from './user-store';

/** The envelope every management API answer carries. */
export interface Envelope<T> {
  success: boolean;
  message: string;
  data: T;
}

/** One page of a list (the shared schemas' `pageOf`). */
export type { Page } from '@modelgate/shared';

export class ApiError extends Error {
  readonly status: number;
  /** True when the global handler already showed the message. */
  readonly shown: boolean;
  constructor(message: string, status: number, shown: boolean) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.shown = shown;
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined | null>;
  /** Do not show errors; the caller handles them. */
  silent?: boolean;
  /** A 401 here means bad credentials, not an expired session (login, register). */
  noAuthRedirect?: boolean;
}

function urlOf(path: string, query?: RequestOptions['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}${path.includes('?') ? '&' : '?'}${text}` : path;
}

/** The global handler for HTTP-level failures. */
function handleHttpFailure(status: number, message: string, options: RequestOptions): boolean {
  if (status === 401 && !options.noAuthRedirect) {
    userStore.clear();
    if (!window.location.pathname.startsWith('/login')) window.location.assign('/login?expired=true');
    return true;
  }
  if (options.silent) return false;
  const t = i18n.t.bind(i18n);
  if (status === 429) showError(t('http.tooManyRequests'));
  else if (status === 500) showError(t('http.serverError'));
  else if (status === 405) showInfo(t('http.demoOnly'));
  else showError(t('http.errorPrefix') + message);
  return true;
}

/**
 * Headers every /api and /pg call carries: the signed-in user's id (New-Api-User) and the console's
 * language (Accept-Language: en or zh), which the server answers its messages in.
 */
export function consoleHeaders(): Record<string, string> {
  const headers: Record<string, string> = { 'Accept-Language': currentLanguage() };
  const user = userStore.get();
  if (user) headers['New-Api-User'] = String(user.id);
  return headers;
}

/** The one http client: unwraps the envelope, throws on success:false, sends New-Api-User and Accept-Language. */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await requestEnvelope<T>(path, options)).data;
}

/**
 * The same call, answering the whole envelope: a few endpoints put their result beside `data`
 * (channel test `time`, update_balance `balance`).
 */
export async function requestEnvelope<T, Extra extends object = object>(
  path: string,
  options: RequestOptions = {},
): Promise<Envelope<T> & Partial<Extra>> {
  const headers: Record<string, string> = { Accept: 'application/json', ...consoleHeaders() };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(urlOf(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body,
      credentials: 'same-origin',
    });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    if (!options.silent) showError(i18n.t('http.errorPrefix') + text);
    throw new ApiError(text, 0, !options.silent);
  }
  let envelope: Envelope<T> | null = null;
  try {
    envelope = (await response.json()) as Envelope<T>;
  } catch {
    envelope = null;
  }
  const message = envelope?.message || response.statusText || String(response.status);
  if (!response.ok) {
    const shown = handleHttpFailure(response.status, message, options);
    throw new ApiError(message, response.status, shown);
  }
  if (!envelope || envelope.success !== true) {
    if (!options.silent) showError(message);
    throw new ApiError(message, response.status, !options.silent);
  }
  return envelope as Envelope<T> & Partial<Extra>;
}

/**
 * A file the server streams (an export): the same headers and failure handling as `request`; a
 * refusal comes back as the usual envelope, a success as the file's bytes.
 */
export async function requestFile(path: string, options: Pick<RequestOptions, 'query'> = {}): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch(urlOf(path, options.query), { headers: consoleHeaders(), credentials: 'same-origin' });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    showError(i18n.t('http.errorPrefix') + text);
    throw new ApiError(text, 0, true);
  }
  const isEnvelope = (response.headers.get('content-type') ?? '').includes('application/json');
  if (response.ok && !isEnvelope) return response.blob();
  const envelope = isEnvelope ? ((await response.json().catch(() => null)) as Envelope<unknown> | null) : null;
  const message = envelope?.message || response.statusText || String(response.status);
  if (!response.ok) throw new ApiError(message, response.status, handleHttpFailure(response.status, message, {}));
  showError(message);
  throw new ApiError(message, response.status, true);
}

export const http = {
  get: <T>(path: string, options?: Omit<RequestOptions, 'method' | 'body'>) => request<T>(path, { ...options, method: 'GET' }),
  post: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    request<T>(path, { ...options, method: 'POST', body: body ?? {} }),
  put: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    request<T>(path, { ...options, method: 'PUT', body: body ?? {} }),
  delete: <T>(path: string, options?: Omit<RequestOptions, 'method' | 'body'>) => request<T>(path, { ...options, method: 'DELETE' }),
};
