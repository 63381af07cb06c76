import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUser, fakeServer, ok, renderRoute, type FakeCall } from '../../../test/render-route';
import { responseTimeColor } from './ChannelCells';

const types = [
  {
    type: 1,
    slug: 'openai',
    displayName: 'OpenAI',
    keyHint: 'sk-... OpenAI key',
    defaultBaseURL: 'https://api.openai.com',
    extraFields: [{ name: 'openai_organization', label: 'Organization', placeholder: 'org-...' }],
    defaultModels: ['gpt-4o', 'gpt-4o-mini'],
    endpoints: ['chat'],
    hasBalance: true,
  },
  {
    type: 8,
    slug: 'custom',
    displayName: '自定义渠道',
    keyHint: 'custom key',
    defaultBaseURL: '',
    extraFields: [
      {
        name: 'base_url',
        label: '完整的接口地址，支持 {model} 变量',
        required: true,
        placeholder: 'https://api.example.com/v1/chat/completions',
      },
    ],
    defaultModels: [],
    endpoints: ['chat'],
    hasBalance: false,
  },
];

const channel = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  name: `ch-${id}`,
  type: 1,
  base_url: '',
  other: '',
  openai_organization: '',
  max_input_tokens: 0,
  model_mapping: '',
  status_code_mapping: '',
  setting: '',
  param_override: '',
  models: 'gpt-4o',
  group: 'default',
  auto_ban: 1,
  test_model: '',
  priority: 0,
  weight: 0,
  tag: '',
  status: 1,
  response_time: 0,
  balance: 0,
  used_quota: 0,
  created_time: 1700000000,
  other_info: '',
  test_time: 0,
  balance_updated_time: 0,
  ...extra,
});

const tagRow = {
  is_tag: true,
  tag: 'team',
  name: 'team',
  type: 1,
  status: 1,
  priority: 5,
  weight: 2,
  models: 'gpt-4o',
  group: 'default',
  used_quota: 0,
  balance: 0,
  response_time: 800,
  test_time: 0,
  created_time: 0,
  children: [channel(3, { tag: 'team', priority: 5, weight: 2 }), channel(4, { tag: 'team', priority: 5, weight: 2 })],
};

function channelServer(extra: Record<string, (call: FakeCall) => unknown> = {}) {
  const items = [
    channel(1, { response_time: 2500, status: 3, other_info: '{"status_reason":"quota exceeded","status_time":1700000000}' }),
    channel(2),
  ];
  return fakeServer({
    'GET /api/channel/types': () => ok(types),
    'GET /api/group/': () => ok(['default', 'vip']),
    'GET /api/channel/models': () => ok([{ id: 'gpt-4o' }, { id: 'gpt-4o-mini' }]),
    'GET /api/channel/': (call) =>
      ok({ items: call.query.get('tag_mode') === 'true' ? [tagRow] : items, page: 1, page_size: 10, total: 2 }),
    'GET /api/channel/search': () => ok({ items: [items[1]], page: 1, page_size: 10, total: 1 }),
    'POST /api/channel/': () => ok({ ids: [9] }),
    ...extra,
  });
}

const drawer = async () => within(await screen.findByRole('dialog'));
const bodies = (calls: FakeCall[], key: string) =>
  calls.filter((call) => `${call.method} ${call.path}` === key).map((call) => call.body as Record<string, unknown>);

describe('channel list', { timeout: 240_000 }, () => {
  it('shows status with the auto-disable tag, response-time colour, and remembers id sort', async () => {
    const { calls } = channelServer();
    await renderRoute('/channel', { user: adminUser });
    expect(await screen.findByText('ch-1')).toBeTruthy();
    expect(screen.getByText('自动禁用')).toBeTruthy();
    expect(screen.getByText('2.50 秒').closest('.ant-tag')?.className).toContain('lime');
    fireEvent.click(screen.getByRole('switch', { name: '使用 ID 排序' }));
    await waitFor(() => expect(calls.some((call) => call.path === '/api/channel/' && call.query.get('id_sort') === 'true')).toBe(true));
    expect(localStorage.getItem('id-sort')).toBe('true');
    expect([0, 1000, 3000, 5000, 5001].map(responseTimeColor)).toEqual(['default', 'green', 'lime', 'gold', 'red']);
  });

  it('searches by keyword, group and model', async () => {
    const { calls } = channelServer();
    await renderRoute('/channel', { user: adminUser });
    await screen.findByText('ch-1');
    fireEvent.change(screen.getByLabelText('关键字'), { target: { value: 'ch' } });
    fireEvent.change(screen.getByLabelText('模型关键字'), { target: { value: 'gpt-4o' } });
    fireEvent.click(screen.getByText(/^查\s*询$/));
    await waitFor(() => expect(calls.some((call) => call.path === '/api/channel/search')).toBe(true));
    const search = calls.find((call) => call.path === '/api/channel/search')!;
    expect(search.query.get('keyword')).toBe('ch');
    expect(search.query.get('model')).toBe('gpt-4o');
  });

  it('batch actions need a selection and a tag', async () => {
    const { calls } = channelServer({ 'POST /api/channel/batch/tag': () => ok(1), 'POST /api/channel/batch': () => ok(1) });
    await renderRoute('/channel', { user: adminUser });
    await screen.findByText('ch-1');
    fireEvent.click(screen.getByText('删除所选通道'));
    expect(await screen.findByText('请先选择要删除的通道！')).toBeTruthy();
    fireEvent.click(screen.getByText('批量设置标签'));
    expect(await screen.findByText('请先选择要设置标签的渠道！')).toBeTruthy();
    const row = screen.getByText('ch-2').closest('tr')!;
    fireEvent.click(within(row).getByRole('checkbox'));
    fireEvent.click(screen.getByText('批量设置标签'));
    const dialog = await drawer();
    fireEvent.click(dialog.getByText(/^确\s*定$/));
    expect(await screen.findByText('标签不能为空！')).toBeTruthy();
    fireEvent.change(dialog.getByLabelText('渠道标签'), { target: { value: 'team' } });
    fireEvent.click(dialog.getByText(/^确\s*定$/));
    await waitFor(() => expect(bodies(calls, 'POST /api/channel/batch/tag')).toEqual([{ ids: [2], tag: 'team' }]));
    fireEvent.click(screen.getByText('删除所选通道'));
    await waitFor(() => expect(bodies(calls, 'POST /api/channel/batch')).toEqual([{ ids: [2] }]));
  });

  it('copies with the _复制 suffix and edits priority in the row', async () => {
    const { calls } = channelServer({ 'POST /api/channel/copy/2': () => ok({ id: 5 }), 'PUT /api/channel/': () => ok(null) });
    await renderRoute('/channel', { user: adminUser });
    const row = (await screen.findByText('ch-2')).closest('tr')!;
    fireEvent.click(within(row).getByText(/^复\s*制$/));
    fireEvent.click(await screen.findByText(/^确\s*定$/));
    await waitFor(() => expect(calls.some((call) => call.path === '/api/channel/copy/2')).toBe(true));
    const copy = calls.find((call) => call.path === '/api/channel/copy/2')!;
    expect(copy.query.get('suffix')).toBe('_复制');
    const priority = within(row).getByLabelText('ch-2 的优先级');
    fireEvent.change(priority, { target: { value: '1.5' } });
    fireEvent.keyDown(priority, { key: 'Enter', code: 'Enter', keyCode: 13 });
    fireEvent.keyUp(priority, { key: 'Enter', code: 'Enter', keyCode: 13 });
    expect(await screen.findByText('优先级必须是整数！')).toBeTruthy();
    fireEvent.change(priority, { target: { value: '7' } });
    fireEvent.keyDown(priority, { key: 'Enter', code: 'Enter', keyCode: 13 });
    fireEvent.keyUp(priority, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(bodies(calls, 'PUT /api/channel/')).toEqual([{ id: 2, priority: 7 }]));
  });
});

describe('tag mode and tag edit', { timeout: 240_000 }, () => {
  it('aggregates children under a tag row and validates the tag dialog', async () => {
    const { calls } = channelServer({ 'PUT /api/channel/tag': () => ok(2) });
    await renderRoute('/channel', { user: adminUser });
    await screen.findByText('ch-1');
    fireEvent.click(screen.getByRole('switch', { name: '开启标签聚合模式' }));
    const tagCell = await screen.findByText('team');
    const row = tagCell.closest('tr')!;
    expect(within(row).getByText('(2)')).toBeTruthy();
    fireEvent.click(within(row).getByText('编辑标签'));
    const dialog = await drawer();
    fireEvent.click(dialog.getByText(/^保\s*存$/));
    expect(await screen.findByText('没有任何修改！')).toBeTruthy();
    fireEvent.change(dialog.getByLabelText('模型重定向'), { target: { value: '{bad' } });
    fireEvent.click(dialog.getByText(/^保\s*存$/));
    expect(await screen.findByText('模型映射必须是合法的 JSON 格式！')).toBeTruthy();
    fireEvent.change(dialog.getByLabelText('模型重定向'), { target: { value: '' } });
    fireEvent.change(dialog.getByLabelText('渠道优先级'), { target: { value: 'x' } });
    fireEvent.click(dialog.getByText(/^保\s*存$/));
    expect(await screen.findByText('优先级必须是整数！')).toBeTruthy();
    fireEvent.change(dialog.getByLabelText('渠道优先级'), { target: { value: '9' } });
    fireEvent.change(dialog.getByLabelText('渠道权重'), { target: { value: '1.2' } });
    fireEvent.click(dialog.getByText(/^保\s*存$/));
    expect(await screen.findByText('权重必须是非负整数！')).toBeTruthy();
    fireEvent.change(dialog.getByLabelText('渠道权重'), { target: { value: '-3' } });
    fireEvent.change(dialog.getByLabelText('标签名'), { target: { value: '' } });
    fireEvent.click(dialog.getByText(/^保\s*存$/));
    await waitFor(() => expect(bodies(calls, 'PUT /api/channel/tag')).toEqual([{ tag: 'team', new_tag: '', priority: 9, weight: 0 }]));
  });
});

describe('channel editor', { timeout: 240_000 }, () => {
  it('validates name/key, models and model mapping, confirms /v1 and strips the trailing slash', async () => {
    const { calls } = channelServer();
    await renderRoute('/channel/add', { user: adminUser });
    const form = await drawer();
    expect(await form.findByText('sk-... OpenAI key', { selector: '.ant-form-item-extra' })).toBeTruthy();
    expect(form.getByLabelText('Organization')).toBeTruthy();
    fireEvent.click(form.getByText(/^提\s*交$/));
    expect(await screen.findByText('请填写渠道名称和渠道密钥！')).toBeTruthy();
    fireEvent.change(form.getByLabelText('名称'), { target: { value: 'main' } });
    fireEvent.change(form.getByLabelText('密钥'), { target: { value: 'sk-upstream' } });
    fireEvent.click(form.getByText(/^提\s*交$/));
    expect(await screen.findByText('请至少选择一个模型！')).toBeTruthy();
    fireEvent.click(form.getByText('填入相关模型'));
    fireEvent.change(form.getByLabelText('模型重定向'), { target: { value: '[1]' } });
    fireEvent.click(form.getByText(/^提\s*交$/));
    expect(await screen.findByText('模型映射必须是合法的 JSON 格式！')).toBeTruthy();
    fireEvent.change(form.getByLabelText('模型重定向'), { target: { value: '{"a":"gpt-4o"}' } });
    fireEvent.change(form.getByLabelText('代理地址'), { target: { value: 'https://up.example.com/v1/' } });
    fireEvent.click(form.getByText(/^提\s*交$/));
    expect(await screen.findByText(/以 \/v1 结尾/)).toBeTruthy();
    fireEvent.click(screen.getAllByRole('button', { name: /确\s*定/ }).at(-1)!);
    await waitFor(() => expect(bodies(calls, 'POST /api/channel/')).toHaveLength(1));
    expect(bodies(calls, 'POST /api/channel/')[0]).toMatchObject({
      name: 'main',
      key: 'sk-upstream',
      type: 1,
      base_url: 'https://up.example.com/v1',
      models: ['gpt-4o', 'gpt-4o-mini'],
      groups: ['default'],
      model_mapping: '{"a":"gpt-4o"}',
      auto_ban: 1,
      priority: 0,
      weight: 0,
    });
    expect(await screen.findByText('渠道创建成功！')).toBeTruthy();
  });

  it('renders type-specific fields, needs a key to fetch models, and rejects existing custom names', async () => {
    channelServer();
    await renderRoute('/channel/add', { user: adminUser });
    const form = await drawer();
    fireEvent.click(form.getByText('获取模型列表'));
    expect(await screen.findByText('请填写密钥')).toBeTruthy();
    fireEvent.change(form.getByLabelText('自定义模型名称'), { target: { value: 'my-model' } });
    fireEvent.click(form.getByText(/^填\s*入$/));
    fireEvent.change(form.getByLabelText('自定义模型名称'), { target: { value: 'my-model,other' } });
    fireEvent.click(form.getByText(/^填\s*入$/));
    expect(await screen.findByText('某些模型已存在！')).toBeTruthy();
    fireEvent.mouseDown(form.getByLabelText('类型'));
    fireEvent.click(await screen.findByTitle('自定义渠道'));
    expect(await form.findByText('完整的接口地址，支持 {model} 变量')).toBeTruthy();
    expect(form.queryByLabelText('Organization')).toBeNull();
  });

  it('loads a channel for /channel/edit/:id and keeps the key when left empty', async () => {
    const { calls } = channelServer({
      'GET /api/channel/7': () => ok(channel(7, { name: 'seven', models: 'gpt-4o', priority: 3 })),
      'PUT /api/channel/': () => ok(null),
    });
    await renderRoute('/channel/edit/7', { user: adminUser });
    const form = await drawer();
    await waitFor(() => expect((form.getByLabelText('名称') as HTMLInputElement).value).toBe('seven'));
    fireEvent.click(form.getByText(/^提\s*交$/));
    await waitFor(() => expect(bodies(calls, 'PUT /api/channel/')).toHaveLength(1));
    const body = bodies(calls, 'PUT /api/channel/')[0]!;
    expect(body).toMatchObject({ id: 7, name: 'seven', models: ['gpt-4o'], priority: 3 });
    expect(body).not.toHaveProperty('key');
    expect(await screen.findByText('渠道更新成功！')).toBeTruthy();
  });
  it('after a save, names the models without a price and links to their editor', async () => {
    channelServer({
      'GET /api/channel/7': () => ok(channel(7, { name: 'seven', models: 'gpt-4o,my-model,other-model' })),
      'PUT /api/channel/': () =>
        ok({ ...channel(7, { name: 'seven', models: 'gpt-4o,my-model,other-model' }), unpriced_models: ['my-model', 'other-model'] }),
      'GET /api/option/': () => ok([]),
    });
    const { router } = await renderRoute('/channel/edit/7', { user: adminUser, language: 'en' });
    const form = await drawer();
    await waitFor(() => expect((form.getByLabelText('Name') as HTMLInputElement).value).toBe('seven'));
    fireEvent.click(form.getByText(/^Submit$/));
    const notice = within((await screen.findByTestId('unpriced-models')).closest('.ant-modal') as HTMLElement);
    expect(notice.getAllByText('This channel has 2 model(s) without a price').length).toBeGreaterThan(0);
    expect(notice.getByText('my-model')).toBeTruthy();
    expect(notice.getByText('other-model')).toBeTruthy();
    const link = notice.getByRole('link', { name: 'Set their prices in "Models without a price"' });
    expect(link.getAttribute('href')).toBe('/setting?tab=operation&section=pricing&view=unset');
    fireEvent.click(link);
    await waitFor(() =>
      expect(`${router.state.location.pathname}${router.state.location.search}`).toBe('/setting?tab=operation&section=pricing&view=unset'),
    );
  });

  it('says nothing more when every model has a price', async () => {
    channelServer({
      'GET /api/channel/7': () => ok(channel(7, { name: 'seven' })),
      'PUT /api/channel/': () => ok({ ...channel(7, { name: 'seven' }), unpriced_models: [] }),
    });
    await renderRoute('/channel/edit/7', { user: adminUser });
    const form = await drawer();
    await waitFor(() => expect((form.getByLabelText('名称') as HTMLInputElement).value).toBe('seven'));
    fireEvent.click(form.getByText(/^提\s*交$/));
    expect(await screen.findByText('渠道更新成功！')).toBeTruthy();
    expect(screen.queryByTestId('unpriced-models')).toBeNull();
  });

  it('shows the key field empty; only the root may reveal the stored key', async () => {
    const { calls } = channelServer({
      'GET /api/channel/7': () => ok(channel(7, { name: 'seven' })),
      'POST /api/channel/7/key': () => ok({ key: 'sk-stored-key' }),
    });
    await renderRoute('/channel/edit/7', { user: adminUser });
    const form = await drawer();
    await waitFor(() => expect((form.getByLabelText('名称') as HTMLInputElement).value).toBe('seven'));
    const keyField = form.getByLabelText('密钥') as HTMLTextAreaElement;
    expect(keyField.value).toBe('');
    expect(keyField.placeholder).toBe('留空则不更改密钥');
    expect(form.queryByText('修改类型或代理地址时需要填写新密钥：只有超级管理员可以保留原密钥')).toBeNull();
    fireEvent.click(form.getByText('查看密钥'));
    await waitFor(() => expect(keyField.value).toBe('sk-stored-key'));
    expect(calls.filter((call) => call.method === 'POST' && call.path === '/api/channel/7/key')).toHaveLength(1);
  });

  it('an admin (role 10) sees no reveal action and saving keeps the key', async () => {
    const { calls } = channelServer({ 'GET /api/channel/7': () => ok(channel(7, { name: 'seven' })), 'PUT /api/channel/': () => ok(null) });
    await renderRoute('/channel/edit/7', { user: { ...adminUser, id: 2, username: 'admin', role: 10 } });
    const form = await drawer();
    await waitFor(() => expect((form.getByLabelText('名称') as HTMLInputElement).value).toBe('seven'));
    expect(form.queryByText('查看密钥')).toBeNull();
    // The server keeps the stored key on a move for the root only: the admin is told before saving.
    expect(form.getByText('修改类型或代理地址时需要填写新密钥：只有超级管理员可以保留原密钥')).toBeTruthy();
    fireEvent.click(form.getByText(/^提\s*交$/));
    await waitFor(() => expect(bodies(calls, 'PUT /api/channel/')).toHaveLength(1));
    expect(bodies(calls, 'PUT /api/channel/')[0]).not.toHaveProperty('key');
    expect(calls.some((call) => call.path.endsWith('/key'))).toBe(false);
  });
});
