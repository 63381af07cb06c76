import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { defaultChats } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { adminUser, fakeServer, ok, renderScreen, type FakeCall } from '../../../test/render-route';
import { SettingsPage } from './SettingsPage';

function chatsServer(chats: unknown[]) {
  const stored: Record<string, string> = { Chats: JSON.stringify(chats) };
  return fakeServer({
    'GET /api/option/': () => ok(Object.entries(stored).map(([key, value]) => ({ key, value }))),
    'PUT /api/option/': (call) => {
      const body = call.body as { key: string; value: string };
      stored[body.key] = body.value;
      return ok(null);
    },
  });
}

const savedChats = (calls: FakeCall[]) =>
  calls.filter((call) => call.method === 'PUT').map((call) => JSON.parse((call.body as { value: string }).value) as unknown);
const openChats = async () => {
  await renderScreen('/setting?tab=operation&section=chats', <SettingsPage />, { user: adminUser });
  return (await screen.findByRole('tabpanel', { name: '可视化编辑' })) as HTMLElement;
};
const save = (panel: HTMLElement) => fireEvent.click(within(panel).getByRole('button', { name: /保存聊天设置/ }));

describe('Chats editor', () => {
  it('edits, reorders, removes and adds chat apps, saving them as [{ name: link }]', async () => {
    const { calls } = chatsServer([
      { Web: 'https://chat.example.com/?key={key}' },
      { OpenCat: 'opencat://team/join?domain={address}&token={key}' },
    ]);
    const panel = await openChats();
    expect((within(panel).getByLabelText('聊天应用 1 的名称') as HTMLInputElement).value).toBe('Web');
    fireEvent.click(within(panel).getByRole('button', { name: '下移聊天应用 1' }));
    await waitFor(() => expect((within(panel).getByLabelText('聊天应用 1 的名称') as HTMLInputElement).value).toBe('OpenCat'));
    fireEvent.click(within(panel).getByRole('button', { name: /添加聊天应用/ }));
    fireEvent.change(await within(panel).findByLabelText('聊天应用 3 的名称'), { target: { value: 'Next' } });
    fireEvent.change(within(panel).getByLabelText('聊天应用 3 的链接'), {
      target: { value: 'https://next.example.com/#/?settings={"key":"{key}","url":"{address}"}' },
    });
    fireEvent.click(within(panel).getByRole('button', { name: '删除聊天应用 2' }));
    save(panel);
    expect(await screen.findByText('保存成功')).toBeTruthy();
    expect(savedChats(calls)).toEqual([
      [
        { OpenCat: 'opencat://team/join?domain={address}&token={key}' },
        { Next: 'https://next.example.com/#/?settings={"key":"{key}","url":"{address}"}' },
      ],
    ]);
  });

  it('refuses an empty or duplicate name and a javascript: link; warns about a link it cannot open', async () => {
    const { calls } = chatsServer([{ Web: 'https://chat.example.com/' }]);
    const panel = await openChats();
    fireEvent.click(within(panel).getByRole('button', { name: /添加聊天应用/ }));
    fireEvent.change(await within(panel).findByLabelText('聊天应用 2 的链接'), { target: { value: 'javascript:alert(1)' } });
    save(panel);
    expect(await within(panel).findByText('请输入名称')).toBeTruthy();
    expect(await within(panel).findByText('不能使用 javascript:、data: 等会执行代码或读取本地数据的链接')).toBeTruthy();
    fireEvent.change(within(panel).getByLabelText('聊天应用 2 的名称'), { target: { value: 'Web' } });
    // Both rows named Web are marked.
    await waitFor(() => expect(within(panel).getAllByText('名称已存在')).toHaveLength(2));
    expect(calls.filter((call) => call.method === 'PUT')).toHaveLength(0);
    fireEvent.change(within(panel).getByLabelText('聊天应用 2 的名称'), { target: { value: 'Fluent Read' } });
    fireEvent.change(within(panel).getByLabelText('聊天应用 2 的链接'), { target: { value: 'fluentread' } });
    expect(await within(panel).findByText('这不是 http(s) 地址或应用链接，控制台不会打开它')).toBeTruthy();
    save(panel);
    expect(await screen.findByText('保存成功')).toBeTruthy();
    expect(savedChats(calls)).toEqual([[{ Web: 'https://chat.example.com/' }, { 'Fluent Read': 'fluentread' }]]);
  });

  it('restores new-api\u2019s default apps after a confirmation, saved only on save', async () => {
    const { calls } = chatsServer([]);
    const panel = await openChats();
    expect(within(panel).getByText('还没有聊天应用')).toBeTruthy();
    save(panel);
    expect(await screen.findByText('你似乎并没有修改什么')).toBeTruthy();
    fireEvent.click(within(panel).getByRole('button', { name: '恢复默认聊天应用' }));
    fireEvent.click(await screen.findByRole('button', { name: /确\s*定/ }));
    await waitFor(() => expect((within(panel).getByLabelText('聊天应用 1 的名称') as HTMLInputElement).value).toBe('Cherry Studio'));
    expect(calls.filter((call) => call.method === 'PUT')).toHaveLength(0);
    save(panel);
    await waitFor(() => expect(savedChats(calls)).toEqual([defaultChats]));
  });

  it('edits the raw JSON too, checked on blur', async () => {
    const { calls } = chatsServer([{ Web: 'https://chat.example.com/' }]);
    await openChats();
    fireEvent.click(screen.getByRole('tab', { name: 'JSON 编辑' }));
    const json = (await screen.findByLabelText('聊天配置（JSON）')) as HTMLTextAreaElement;
    fireEvent.change(json, { target: { value: '[{"Web": ' } });
    fireEvent.blur(json);
    expect(await screen.findByText('不是合法的 JSON 字符串')).toBeTruthy();
    fireEvent.change(json, { target: { value: '[{"Other": "https://other.example.com/"}]' } });
    fireEvent.blur(json);
    fireEvent.click(screen.getByRole('button', { name: /保存JSON 编辑/ }));
    await waitFor(() => expect(savedChats(calls)).toEqual([[{ Other: 'https://other.example.com/' }]]));
  });
});
