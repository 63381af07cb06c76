import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { baseStatus, fakeServer, ok, renderRoute } from '../../test/render-route';

describe('the language switch', { timeout: 60_000 }, () => {
  it('is labelled with the current language, and a choice switches, remembers and reaches the server', async () => {
    const { fetchMock } = fakeServer({ 'GET /api/pricing': () => ok([]) });
    await renderRoute('/pricing');
    const button = await screen.findByRole('button', { name: '语言：中文' });
    expect(button.textContent).toContain('中文');
    fireEvent.click(button);
    fireEvent.click(await screen.findByText('English'));
    await screen.findByRole('button', { name: 'Language: English' });
    // jsdom matches no media query, so the bar is the narrow one: the short name.
    expect(screen.getByRole('button', { name: 'Language: English' }).textContent).toBe('EN');
    expect(localStorage.getItem('i18nextLng')).toBe('en');
    expect(document.documentElement.lang).toBe('en');
    // antd's own texts follow too (the table's empty state).
    await waitFor(() => expect(screen.getAllByText('No data').length).toBeGreaterThan(0));
    const languages = fetchMock.mock.calls.map(([, init]) => (init?.headers as Record<string, string>)['Accept-Language']);
    expect(languages[0]).toBe('zh');
  });
});

describe('the docs link', { timeout: 60_000 }, () => {
  it('is shown for an http(s) link only: a javascript: link would run in the console', async () => {
    fakeServer({
      'GET /api/status': () => ok({ ...baseStatus, docs_link: 'javascript:alert(document.cookie)' }),
      'GET /api/pricing': () => ok([]),
    });
    await renderRoute('/pricing');
    await screen.findByRole('button', { name: '语言：中文' });
    expect(screen.queryByText('文档')).toBeNull();
  });

  it('is shown for an https link', async () => {
    fakeServer({ 'GET /api/status': () => ok({ ...baseStatus, docs_link: 'https://docs.example.com' }), 'GET /api/pricing': () => ok([]) });
    await renderRoute('/pricing');
    expect(await screen.findByText('文档')).toBeTruthy();
  });
});
