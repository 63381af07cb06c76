import { render } from '@testing-library/react';
import { StyleProvider } from '@ant-design/cssinjs';
import { ConfigProvider } from 'antd';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { vi } from 'vitest';
import { AppProviders, createQueryClient } from '../app/providers';
import { routes } from '../app/router';
import i18n from '../lib/i18n';
import { userStore, type StoredUser } from '../lib/user-store';

export interface FakeCall {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  at: number;
}

type Handler = (call: FakeCall) => unknown | Promise<unknown>;

export const baseStatus = {
  setup: true,
  self_use_mode_enabled: false,
  demo_site_enabled: false,
  system_name: 'ModelGate',
  logo: '',
  footer_html: '',
  quota_per_unit: 500000,
  display_in_currency: true,
  enable_drawing: false,
  enable_task: false,
  enable_data_export: false,
  chats: [],
  docs_link: '',
  version: '0.1.0',
  start_time: 0,
  email_verification: false,
  register_enabled: true,
  password_login_enabled: true,
  password_register_enabled: true,
  turnstile_check: false,
  github_oauth: false,
  oidc_enabled: false,
  linuxdo_oauth: false,
  wechat_login: false,
  telegram_oauth: false,
};

export const ok = (data: unknown) => ({ status: 200, body: { success: true, message: '', data } });
export const fail = (message: string, status = 200) => ({ status, body: { success: false, message, data: null } });

/** A fake server: handlers keyed 'METHOD /path'; every call is recorded. */
export function fakeServer(handlers: Record<string, Handler>) {
  const calls: FakeCall[] = [];
  const fetchMock = vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://localhost');
    const method = (init?.method ?? 'GET').toUpperCase();
    const call: FakeCall = {
      method,
      path: url.pathname,
      query: url.searchParams,
      body: init?.body ? JSON.parse(String(init.body)) : undefined,
      at: performance.now(),
    };
    calls.push(call);
    const handler = handlers[`${method} ${url.pathname}`];
    const result = (handler ? await handler(call) : url.pathname === '/api/status' ? ok(baseStatus) : ok('')) as {
      status: number;
      body: unknown;
    };
    return new Response(JSON.stringify(result.body), { status: result.status, headers: { 'Content-Type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, fetchMock };
}

/**
 * antd tuned for jsdom: no motion (transitions and their timers only slow tests down), and its generated
 * CSS kept out of the document — jsdom re-runs the whole cascade on every getComputedStyle, which the
 * role and label queries call for each node, so thousands of antd rules made one query take seconds.
 * Inline styles and the hidden attribute still apply; the app's theme still applies inside.
 */
const detachedStyles = document.createElement('div');
const TestConfig = ({ children }: { children: ReactNode }) => (
  <StyleProvider container={detachedStyles}>
    <ConfigProvider theme={{ token: { motion: false } }}>{children}</ConfigProvider>
  </StyleProvider>
);

async function signInAs(language: string, user?: object) {
  await i18n.changeLanguage(language);
  if (user) userStore.set(user as StoredUser);
  else userStore.clear();
}

function renderRouter(router: ReturnType<typeof createMemoryRouter>) {
  const view = render(
    <TestConfig>
      <AppProviders queryClient={createQueryClient()}>
        <RouterProvider router={router} />
      </AppProviders>
    </TestConfig>,
  );
  return { ...view, router };
}

/** The whole app (layout, guards) at a path. */
export async function renderRoute(path: string, { language = 'zh', user }: { language?: string; user?: object } = {}) {
  await signInAs(language, user);
  return renderRouter(createMemoryRouter(routes, { initialEntries: [path] }));
}

/** One screen alone at a path (query string included), without the app layout: for panel-level tests. */
export async function renderScreen(path: string, screen: ReactNode, { language = 'zh', user }: { language?: string; user?: object } = {}) {
  await signInAs(language, user);
  return renderRouter(
    createMemoryRouter([{ path: new URL(path, 'http://localhost').pathname, element: screen }], { initialEntries: [path] }),
  );
}

export const adminUser = { id: 1, username: 'root', display_name: 'Root', role: 100, status: 1, group: 'default' };
export const regularUser = { id: 2, username: 'alice', display_name: 'Alice', role: 1, status: 1, group: 'default' };
