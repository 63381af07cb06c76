import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { adminUser, fakeServer, ok, renderRoute, type FakeCall } from '../../../test/render-route';

const code = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  name: `code-${id}`,
  key: `key${id}${'0'.repeat(28)}`,
  status: 1,
  quota: 100000,
  created_time: 1700000000,
  used_user_id: 0,
  ...extra,
});

function redemptionServer(extra: Record<string, (call: FakeCall) => unknown> = {}) {
  return fakeServer({
    'GET /api/redemption/': () => ok({ items: [code(1), code(2, { status: 3, used_user_id: 7 })], page: 1, page_size: 10, total: 2 }),
    'GET /api/redemption/search': () => ok({ items: [code(1)], page: 1, page_size: 10, total: 1 }),
    'POST /api/redemption/': (call) =>
      ok(Array.from({ length: (call.body as { count: number }).count }, (_v, index) => code(10 + index).key)),
    'PUT /api/redemption/': () => ok(null),
    ...extra,
  });
}

const bodies = (calls: FakeCall[], key: string) =>
  calls.filter((call) => `${call.method} ${call.path}` === key).map((call) => call.body as Record<string, unknown>);

describe('redemption codes', { timeout: 240_000 }, () => {
  it('creates with the defaults, names it by the formatted quota and shows the created codes', async () => {
    const { calls } = redemptionServer();
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await renderRoute('/redemption', { user: adminUser });
    await screen.findByText('code-1');
    fireEvent.click(screen.getByText(/^添加兑换码$/));
    const form = within(await screen.findByRole('dialog'));
    expect((form.getByLabelText('额度') as HTMLInputElement).value).toBe('100000');
    expect((form.getByLabelText('生成数量') as HTMLInputElement).value).toBe('1');
    fireEvent.change(form.getByLabelText('生成数量'), { target: { value: '101' } });
    fireEvent.click(form.getByText(/^提\s*交$/));
    expect(await screen.findByText('兑换码个数必须是 1 到 100 之间的整数')).toBeTruthy();
    fireEvent.change(form.getByLabelText('生成数量'), { target: { value: '2' } });
    fireEvent.change(form.getByLabelText('额度'), { target: { value: '0' } });
    fireEvent.click(form.getByText(/^提\s*交$/));
    expect(await screen.findByText('额度必须是大于 0 的整数')).toBeTruthy();
    fireEvent.change(form.getByLabelText('额度'), { target: { value: '100000' } });
    fireEvent.click(form.getByText(/^提\s*交$/));
    await waitFor(() => expect(bodies(calls, 'POST /api/redemption/')).toEqual([{ name: '$0.20', quota: 100000, count: 2 }]));
    expect(await screen.findByText('兑换码创建成功')).toBeTruthy();
    const created = within((await screen.findByText('已创建 2 个兑换码')).closest('.ant-modal') as HTMLElement);
    expect((created.getByLabelText('兑换码') as HTMLTextAreaElement).value).toBe(`${code(10).key}\n${code(11).key}`);
    fireEvent.click(created.getByText(/^复制全部$/));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(`${code(10).key}\n${code(11).key}`));
  });

  it('rejects a name over 20 characters; copy selected needs a selection; used codes cannot be enabled or edited', async () => {
    const { calls } = redemptionServer();
    await renderRoute('/redemption', { user: adminUser });
    await screen.findByText('code-1');
    fireEvent.click(screen.getByText(/^复制所选兑换码$/));
    expect(await screen.findByText('请至少选择一个兑换码！')).toBeTruthy();
    const used = screen.getByText('code-2').closest('tr')!;
    expect(within(used).queryByText(/^启\s*用$/)).toBeNull();
    expect(
      (
        within(used)
          .getByText(/^编\s*辑$/)
          .closest('button') as HTMLButtonElement
      ).disabled,
    ).toBe(true);
    expect(used.className).toContain('mg-row-cancelled');
    const unused = screen.getByText('code-1').closest('tr')!;
    fireEvent.click(within(unused).getByText(/^禁\s*用$/));
    await waitFor(() => expect(bodies(calls, 'PUT /api/redemption/')).toEqual([{ id: 1, status: 2 }]));
    fireEvent.click(screen.getByText(/^添加兑换码$/));
    const form = within(await screen.findByRole('dialog'));
    fireEvent.change(form.getByLabelText('名称'), { target: { value: 'x'.repeat(21) } });
    fireEvent.click(form.getByText(/^提\s*交$/));
    expect(await screen.findByText('兑换码名称长度必须在 1 到 20 个字符之间')).toBeTruthy();
    expect(bodies(calls, 'POST /api/redemption/')).toHaveLength(0);
  });
});
