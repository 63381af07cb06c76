import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { baseStatus, fakeServer, ok, regularUser, renderRoute } from '../../../test/render-route';

/** /api/data answers its freshness beside `data`. */
const dataAnswer = (aggregatedAt: number, minutes: number) => ({
  status: 200,
  body: {
    ...ok([
      {
        id: 1,
        user_id: 2,
        username: 'alice',
        model_name: 'gpt-4o-mini',
        created_at: aggregatedAt - 3600,
        count: 3,
        quota: 384,
        token_used: 90,
      },
    ]).body,
    aggregated_at: aggregatedAt,
    aggregation_interval_minutes: minutes,
  },
});

describe('dashboard', { timeout: 60_000 }, () => {
  it('says when its figures were last aggregated and how often, and shows small totals with their digits', async () => {
    const at = new Date(2025, 4, 6, 7, 8, 9).getTime() / 1000;
    fakeServer({
      'GET /api/status': () => ok({ ...baseStatus, enable_data_export: true }),
      'GET /api/data/self': () => dataAnswer(at, 5),
    });
    await renderRoute('/detail', { user: regularUser, language: 'en' });
    expect(
      await screen.findByText(
        'Figures as of 2025-05-06 07:08:09. Calls are added up every 5 min, so the latest ones may not be counted yet.',
        {},
        { timeout: 20_000 },
      ),
    ).toBeTruthy();
    expect(screen.getByText('$0.000768')).toBeTruthy();
  });

  it('before the first aggregation it says when figures will come', async () => {
    fakeServer({
      'GET /api/status': () => ok({ ...baseStatus, enable_data_export: true }),
      'GET /api/data/self': () => ({ status: 200, body: { ...ok([]).body, aggregated_at: 0, aggregation_interval_minutes: 2 } }),
    });
    await renderRoute('/detail', { user: regularUser });
    expect(await screen.findByText('暂无统计。服务运行后，调用每 2 分钟汇总一次。')).toBeTruthy();
  });
});
