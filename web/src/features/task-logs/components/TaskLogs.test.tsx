import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUser, baseStatus, fakeServer, ok, regularUser, renderRoute } from '../../../test/render-route';

const drawing = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  created_at: 1_760_000_000,
  submit_time: 1_760_000_000,
  start_time: 0,
  finish_time: 1_760_000_030,
  action: 'IMAGINE',
  mj_id: `mj-${id}`,
  status: 'SUCCESS',
  progress: '100%',
  image_url: `https://img.example/${id}.png`,
  prompt: `a cat number ${id}`,
  prompt_en: '',
  description: '',
  fail_reason: '',
  ...extra,
});
const music = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  created_at: 1_760_000_000,
  submit_time: 1_760_000_000,
  finish_time: 1_760_000_090,
  progress: '40%',
  platform: 'suno',
  action: 'MUSIC',
  task_id: `task-${id}`,
  status: 'IN_PROGRESS',
  fail_reason: '',
  data: '[{"id":"clip-1","title":"Song"}]',
  ...extra,
});

/** YYYY-MM-DD HH:mm:ss in local time, written out independently of the console's helper. */
const localTime = (seconds: number) => {
  const date = new Date(seconds * 1000);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
};

describe('task logs', { timeout: 240_000 }, () => {
  it('drawing log (admin): the admin columns, the callback banner, channel filter, the image dialog and the next page', async () => {
    const { calls } = fakeServer({
      'GET /api/status': () => ok({ ...baseStatus, mj_notify_enabled: false }),
      'GET /api/mj/': (call) =>
        ok(
          call.query.get('p') === '0'
            ? Array.from({ length: 10 }, (_v, index) => drawing(index + 1, { channel_id: 7, code: 1, state: 'ok' }))
            : [drawing(11, { channel_id: 7, code: 22, status: 'FAILURE', fail_reason: 'banned prompt', progress: '0%' })],
        ),
    });
    await renderRoute('/midjourney', { user: adminUser });
    await screen.findByText('mj-1');
    expect(screen.getByText(/当前未开启 Midjourney 回调/)).toBeTruthy();
    expect(screen.getAllByText('提交结果').length).toBeGreaterThan(0);
    expect(screen.getAllByText('任务状态').length).toBeGreaterThan(0);
    const first = calls.find((call) => call.path === '/api/mj/')!;
    expect(first.query.get('p')).toBe('0');
    // 30 days back to an hour ahead.
    const span = Number(first.query.get('end_timestamp')) - Number(first.query.get('start_timestamp'));
    expect(span).toBeGreaterThan(30 * 86400);
    expect(span).toBeLessThan(30 * 86400 + 2 * 3600);

    fireEvent.click(within(screen.getByText('mj-1').closest('tr')!).getByText('查看图片'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('a cat number 1')).toBeTruthy();
    expect(dialog.querySelector('img')?.getAttribute('src')).toBe('https://img.example/1.png');

    fireEvent.click(screen.getByTitle('2'));
    await screen.findByText('mj-11');
    expect(
      calls
        .filter((call) => call.path === '/api/mj/')
        .at(-1)!
        .query.get('p'),
    ).toBe('1');
    expect(screen.getByText('重复提交')).toBeTruthy();

    fireEvent.change(screen.getByLabelText('渠道 ID'), { target: { value: '7' } });
    fireEvent.click(screen.getByText(/^查\s*询$/));
    await waitFor(() =>
      expect(
        calls
          .filter((call) => call.path === '/api/mj/')
          .at(-1)!
          .query.get('channel_id'),
      ).toBe('7'),
    );
  });

  it('drawing log (user): the self endpoint, no channel filter and no admin columns, no banner when the callback is on', async () => {
    const { calls } = fakeServer({
      'GET /api/status': () => ok({ ...baseStatus, mj_notify_enabled: true }),
      'GET /api/mj/self/': () => ok([drawing(1)]),
    });
    await renderRoute('/midjourney', { user: regularUser });
    await screen.findByText('mj-1');
    const row = screen.getByText('mj-1').closest('tr')!;
    expect(within(row).getByText(localTime(1_760_000_000))).toBeTruthy();
    expect(within(row).getByText(localTime(1_760_000_030))).toBeTruthy();
    expect(calls.some((call) => call.path === '/api/mj/')).toBe(false);
    expect(screen.queryByLabelText('渠道 ID')).toBeNull();
    expect(screen.queryByText('提交结果')).toBeNull();
    expect(screen.queryByText(/当前未开启 Midjourney 回调/)).toBeNull();
  });

  it("music log: from today's midnight, progress circles, time spent in red above 60 s, the task JSON on click", async () => {
    const { calls } = fakeServer({
      'GET /api/task/self': () =>
        ok([music(1), music(2, { finish_time: 1_760_000_020, progress: '100%', status: 'SUCCESS', action: 'LYRICS' })]),
    });
    await renderRoute('/task', { user: regularUser });
    await screen.findByText('task-1');
    const query = calls.find((call) => call.path === '/api/task/self')!.query;
    const midnight = new Date();
    midnight.setHours(0, 0, 0, 0);
    expect(Number(query.get('start_timestamp'))).toBe(Math.floor(midnight.getTime() / 1000));
    expect(screen.queryByText('渠道')).toBeNull();
    const slow = screen.getByText('task-1').closest('tr')!;
    expect(within(slow).getByText('90 s').closest('.ant-tag')!.className).toContain('red');
    expect(within(slow).getByRole('progressbar')).toBeTruthy();
    const fast = screen.getByText('task-2').closest('tr')!;
    expect(within(fast).getByText('20 s').closest('.ant-tag')!.className).toContain('green');
    expect(within(fast).getByText('生成歌词')).toBeTruthy();
    fireEvent.click(screen.getByText('task-1'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/"title": "Song"/)).toBeTruthy();
  });
  it('music log: a video task shows its length and a link to watch it on the console', async () => {
    fakeServer({
      'GET /api/task/self': () =>
        ok([
          music(3, {
            platform: 'video',
            action: 'generate',
            status: 'SUCCESS',
            progress: '100%',
            data: '',
            video_seconds: 8,
            preview_url: '/api/task/video/video_abc/content',
          }),
          music(4),
        ]),
    });
    await renderRoute('/task', { user: regularUser });
    const row = (await screen.findByText('task-3')).closest('tr')!;
    expect(within(row).getByText('视频 · 8 秒')).toBeTruthy();
    expect(within(row).getByText('观看').closest('a')!.getAttribute('href')).toBe('/api/task/video/video_abc/content');
    expect(within(screen.getByText('task-4').closest('tr')!).queryByText('观看')).toBeNull();
  });
});
