import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUser, fail, fakeServer, ok, renderScreen, type FakeCall } from '../../../test/render-route';
import { SettingsPage } from './SettingsPage';

const baseOptions: Record<string, string> = {
  GroupRatio: '{"default":1,"vip":1}',
  UserUsableGroups: '{"default":"默认分组"}',
  ModelPrice: '{"mj_imagine":0.1}',
  ModelRatio: '{"gpt-4o-mini":0.075,"gpt-4o":1.25}',
  CompletionRatio: '{"gpt-4o-mini":4}',
  CacheRatio: '{}',
  QuotaForNewUser: '0',
  PreConsumedQuota: '500',
  QuotaForInviter: '0',
  QuotaForInvitee: '0',
  QuotaRemindThreshold: '1000',
  LogConsumeEnabled: 'true',
  ModelRequestRateLimitEnabled: 'false',
  ModelRequestRateLimitDurationMinutes: '1',
  ModelRequestRateLimitCount: '0',
  ModelRequestRateLimitSuccessCount: '1000',
  'general_setting.ping_interval_enabled': 'false',
  'general_setting.ping_interval_seconds': '60',
  'claude.thinking_adapter_budget_tokens_percentage': '0.8',
  'gemini.safety_settings': '{"default":"OFF"}',
};

function optionServer(
  options: Record<string, string>,
  extra: Record<string, (call: FakeCall) => unknown> = {},
  onPut?: (call: FakeCall) => unknown,
) {
  const stored = { ...options };
  return fakeServer({
    'GET /api/option/': () => ok(Object.entries(stored).map(([key, value]) => ({ key, value }))),
    'PUT /api/option/': async (call) => {
      const result = onPut ? await onPut(call) : ok(null);
      const body = call.body as { key: string; value: string };
      if ((result as { body: { success: boolean } }).body.success) stored[body.key] = body.value;
      return result;
    },
    'GET /api/channel/models_enabled': () => ok(['gpt-4o-mini', 'brand-new-model']),
    ...extra,
  });
}

/** The settings page alone on one tab (and sub-section): each test renders only the panels it checks. */
const openSettings = (query: string) => renderScreen(`/setting?${query}`, <SettingsPage />, { user: adminUser });

/** Switches the operation tab's sub-section through its side menu. */
const openSection = (name: string) => fireEvent.click(screen.getByRole('menuitem', { name }));

const puts = (calls: FakeCall[]) =>
  calls.filter((call) => call.method === 'PUT').map((call) => call.body as { key: string; value: string });

async function panel(title: string) {
  const heading = await screen.findByText(title, { selector: '.ant-card-head-title' });
  return heading.closest('.ant-card') as HTMLElement;
}

const saveButton = (card: HTMLElement, name: string) => within(card).getByRole('button', { name: new RegExp(`保存${name}`) });

describe('operation tab', () => {
  it('validates JSON on blur, warns on no change and reports a partial failure', async () => {
    const { calls } = optionServer(baseOptions, {}, (call) =>
      (call.body as { key: string }).key === 'PreConsumedQuota' ? fail('数据库错误') : ok(null),
    );
    await openSettings('tab=operation&section=groups');
    const groups = await panel('分组倍率设置');
    const ratio = within(groups).getByLabelText('分组倍率');
    fireEvent.change(ratio, { target: { value: '{"default": 1,' } });
    fireEvent.blur(ratio);
    expect(await within(groups).findByText('不是合法的 JSON 字符串')).toBeTruthy();
    fireEvent.click(saveButton(groups, '分组倍率设置'));
    expect(await screen.findByText('请检查输入')).toBeTruthy();

    openSection('通用设置');
    const general = await panel('通用设置');
    fireEvent.click(saveButton(general, '通用设置'));
    expect(await screen.findByText('你似乎并没有修改什么')).toBeTruthy();

    openSection('额度设置');
    const quota = await panel('额度设置');
    fireEvent.change(within(quota).getByLabelText('新用户初始额度'), { target: { value: '100' } });
    fireEvent.change(within(quota).getByLabelText('请求预扣费额度'), { target: { value: '600' } });
    fireEvent.click(saveButton(quota, '额度设置'));
    expect(await screen.findByText('部分保存失败，请重试')).toBeTruthy();
    expect(
      puts(calls)
        .map((entry) => entry.key)
        .sort(),
    ).toEqual(['PreConsumedQuota', 'QuotaForNewUser']);
    expect(within(quota).getByLabelText('额度提醒阈值').getAttribute('aria-valuemin')).toBe('0');
  });

  it('edits UnsetModelRatio, StreamCacheQueueLength and CacheCreationRatio', async () => {
    const { calls } = optionServer({
      ...baseOptions,
      UnsetModelRatio: '37.5',
      StreamCacheQueueLength: '0',
      CacheCreationRatio: '{"claude-3-haiku-20240307":1.2}',
    });
    await openSettings('tab=operation&section=general');
    const general = await panel('通用设置');
    const unset = within(general).getByLabelText('未设置价格模型的倍率') as HTMLInputElement;
    expect(unset.value).toBe('37.5');
    fireEvent.change(unset, { target: { value: '10' } });
    fireEvent.click(saveButton(general, '通用设置'));
    expect(await screen.findByText('保存成功')).toBeTruthy();

    openSection('额度设置');
    const quota = await panel('额度设置');
    fireEvent.change(within(quota).getByLabelText('流模式缓存队列长度'), { target: { value: '8' } });
    fireEvent.click(saveButton(quota, '额度设置'));
    await waitFor(() => expect(puts(calls).some((entry) => entry.key === 'StreamCacheQueueLength')).toBe(true));

    openSection('模型定价');
    const pricing = await panel('模型倍率设置');
    const creation = within(pricing).getByLabelText('缓存创建倍率') as HTMLTextAreaElement;
    expect(creation.value).toBe('{"claude-3-haiku-20240307":1.2}');
    fireEvent.change(creation, { target: { value: '{"claude-3-haiku-20240307":1.2,"claude-sonnet-4-20250514":1.25}' } });
    fireEvent.click(saveButton(pricing, '模型倍率设置'));
    await waitFor(() => expect(puts(calls).some((entry) => entry.key === 'CacheCreationRatio')).toBe(true));
    expect(puts(calls)).toEqual([
      { key: 'UnsetModelRatio', value: '10' },
      { key: 'StreamCacheQueueLength', value: '8' },
      { key: 'CacheCreationRatio', value: '{"claude-3-haiku-20240307":1.2,"claude-sonnet-4-20250514":1.25}' },
    ]);
  });

  it('logs: the error-log switch (off by default) is saved as ErrorLogEnabled', async () => {
    const { calls } = optionServer({ ...baseOptions, ErrorLogEnabled: 'false' });
    await openSettings('tab=operation&section=logs');
    const logs = await panel('日志设置');
    const toggle = within(logs).getByRole('switch', { name: '启用错误日志记录' });
    expect(toggle.getAttribute('aria-checked')).toBe('false');
    expect(within(logs).getByText('失败的转发请求记为错误日志（类型 5），不扣费；错误信息中的密钥和地址会被去除')).toBeTruthy();
    fireEvent.click(toggle);
    fireEvent.click(saveButton(logs, '日志设置'));
    await waitFor(() => expect(puts(calls)).toEqual([{ key: 'ErrorLogEnabled', value: 'true' }]));
  });

  it('clears logs before the chosen time, which is required', async () => {
    const { calls } = optionServer(baseOptions, { 'DELETE /api/log/': () => ok(42) });
    await openSettings('tab=operation&section=logs');
    const logs = await panel('日志设置');
    const picker = within(logs).getByPlaceholderText('日志记录时间') as HTMLInputElement;
    expect(picker.value).not.toBe('');
    fireEvent.click(within(logs).getByRole('button', { name: /清除历史日志/ }));
    fireEvent.click(await screen.findByRole('button', { name: /确\s*定/ }));
    expect(await screen.findByText('42 条日志已清理！')).toBeTruthy();
    const deletion = calls.find((call) => call.method === 'DELETE')!;
    const target = Number(deletion.query.get('target_timestamp'));
    const monthAgo = Date.now() / 1000 - 30 * 86400;
    expect(Math.abs(target - monthAgo)).toBeLessThan(3 * 86400);

    const clear = logs.querySelector('.ant-picker-clear') as HTMLElement;
    fireEvent.mouseDown(clear);
    fireEvent.click(clear);
    await waitFor(() => expect(picker.value).toBe(''));
    fireEvent.click(within(logs).getByRole('button', { name: /清除历史日志/ }));
    expect(await screen.findByText('请选择日志记录时间')).toBeTruthy();
  });
});

describe('pricing editor', () => {
  async function openTab(name: string) {
    await openSettings('tab=operation&section=pricing');
    fireEvent.click(await screen.findByRole('tab', { name }));
    return (await screen.findByRole('tabpanel', { name })) as HTMLElement;
  }

  it('checks numbers in cells, duplicate model names and a zero price', async () => {
    optionServer(baseOptions);
    const editor = await openTab('可视化倍率设置');
    const ratioCell = await within(editor).findByLabelText('gpt-4o 模型倍率');
    fireEvent.change(ratioCell, { target: { value: 'abc' } });
    expect(await screen.findByText('请输入数字')).toBeTruthy();
    expect((ratioCell as HTMLInputElement).value).toBe('1.25');
    expect((within(editor).getByLabelText('mj_imagine 模型倍率') as HTMLInputElement).disabled).toBe(true);

    fireEvent.click(within(editor).getByRole('button', { name: /添加模型/ }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('模型名称'), { target: { value: 'gpt-4o' } });
    fireEvent.change(within(dialog).getByLabelText('模型倍率'), { target: { value: '2' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /确\s*定/ }));
    expect(await screen.findByText('模型名称已存在')).toBeTruthy();
    fireEvent.change(within(dialog).getByLabelText('模型名称'), { target: { value: 'my-model' } });
    fireEvent.click(within(dialog).getByRole('radio', { name: '按量计费（价格）' }));
    fireEvent.change(await within(dialog).findByLabelText('输入价格（美元 / 1M tokens）'), { target: { value: '0' } });
    fireEvent.change(within(dialog).getByLabelText('输出价格（美元 / 1M tokens）'), { target: { value: '8' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /确\s*定/ }));
    expect(await screen.findByText('模型价格不能为0')).toBeTruthy();
    fireEvent.change(within(dialog).getByLabelText('输入价格（美元 / 1M tokens）'), { target: { value: '2' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /确\s*定/ }));
    await waitFor(() => expect((within(editor).getByLabelText('my-model 模型倍率') as HTMLInputElement).value).toBe('1'));
    expect((within(editor).getByLabelText('my-model 补全倍率') as HTMLInputElement).value).toBe('4');
  });

  it('batch sets with the spec messages; price clears the ratios; saves the three maps', async () => {
    const { calls } = optionServer(baseOptions);
    const editor = await openTab('可视化倍率设置');
    await within(editor).findByLabelText('gpt-4o 模型倍率');
    fireEvent.click(within(editor).getByRole('button', { name: /批量设置/ }));
    expect(await screen.findByText('请先选择需要批量设置的模型')).toBeTruthy();
    const row = within(editor).getByLabelText('gpt-4o 模型倍率').closest('tr') as HTMLElement;
    fireEvent.click(within(row).getByRole('checkbox'));
    fireEvent.click(within(editor).getByRole('button', { name: /批量设置/ }));
    await waitFor(() => expect(document.querySelector('.ant-modal-title')?.textContent ?? '').toContain('批量设置 1 个模型'), {
      timeout: 3000,
    });
    const batch = (await screen.findAllByRole('dialog')).find((node) => node.textContent?.includes('批量设置 1 个模型')) as HTMLElement;
    fireEvent.click(within(batch).getByRole('button', { name: /确\s*定/ }));
    expect(await screen.findByText('请输入填充值')).toBeTruthy();
    fireEvent.change(within(batch).getByLabelText('填充值'), { target: { value: 'x1' } });
    fireEvent.click(within(batch).getByRole('button', { name: /确\s*定/ }));
    expect(await screen.findByText('请输入有效的数字')).toBeTruthy();
    fireEvent.mouseDown(within(batch).getByRole('combobox', { name: '设置类型' }));
    fireEvent.click(await screen.findByText('模型倍率和补全倍率', { selector: '.ant-select-item-option-content' }));
    fireEvent.change(within(batch).getByLabelText('填充值'), { target: { value: '3' } });
    fireEvent.click(within(batch).getByRole('button', { name: /确\s*定/ }));
    expect(await screen.findByText('请输入模型倍率和补全倍率')).toBeTruthy();
    fireEvent.mouseDown(within(batch).getByRole('combobox', { name: '设置类型' }));
    fireEvent.click(await screen.findByText('固定价格', { selector: '.ant-select-item-option-content' }));
    fireEvent.change(within(batch).getByLabelText('填充值'), { target: { value: '0.5' } });
    fireEvent.click(within(batch).getByRole('button', { name: /确\s*定/ }));
    await waitFor(() => expect((within(editor).getByLabelText('gpt-4o 模型倍率') as HTMLInputElement).disabled).toBe(true));
    expect((within(editor).getByLabelText('gpt-4o 模型倍率') as HTMLInputElement).value).toBe('');

    fireEvent.click(within(editor).getByRole('button', { name: /应用更改/ }));
    expect(await screen.findByText('保存成功')).toBeTruthy();
    const saved = Object.fromEntries(puts(calls).map((entry) => [entry.key, JSON.parse(entry.value)]));
    expect(saved.ModelPrice).toEqual({ mj_imagine: 0.1, 'gpt-4o': 0.5 });
    expect(saved.ModelRatio).toEqual({ 'gpt-4o-mini': 0.075 });
    expect(saved.CompletionRatio).toBeUndefined();
  });

  it('opens on the models without a price from a link (?view=unset) and keeps the chosen tab in the address', async () => {
    optionServer(baseOptions);
    const { router } = await openSettings('tab=operation&section=pricing&view=unset');
    const unset = (await screen.findByRole('tabpanel', { name: '未设置倍率模型' })) as HTMLElement;
    expect(await within(unset).findByLabelText('brand-new-model 模型倍率')).toBeTruthy();
    fireEvent.click(screen.getByRole('tab', { name: '可视化倍率设置' }));
    await waitFor(() => expect(new URLSearchParams(router.state.location.search).get('view')).toBe('visual'));
    expect(new URLSearchParams(router.state.location.search).get('section')).toBe('pricing');
  });

  it('lists models without price or ratio until one is set', async () => {
    const { calls } = optionServer(baseOptions);
    const unset = await openTab('未设置倍率模型');
    const cell = await within(unset).findByLabelText('brand-new-model 模型倍率');
    expect(within(unset).queryByLabelText('gpt-4o-mini 模型倍率')).toBeNull();
    fireEvent.click(within(unset).getByRole('button', { name: /应用更改/ }));
    expect(await screen.findByText('你似乎并没有修改什么')).toBeTruthy();
    fireEvent.change(cell, { target: { value: '0.5' } });
    fireEvent.click(within(unset).getByRole('button', { name: /应用更改/ }));
    expect(await screen.findByText('保存成功')).toBeTruthy();
    expect(JSON.parse(puts(calls).find((entry) => entry.key === 'ModelRatio')!.value)).toEqual({
      'gpt-4o-mini': 0.075,
      'gpt-4o': 1.25,
      'brand-new-model': 0.5,
    });
    await waitFor(() => expect(within(unset).queryByLabelText('brand-new-model 模型倍率')).toBeNull());
    expect(within(unset).getByText('所有渠道中的模型都已设置价格或倍率')).toBeTruthy();
  });
});

describe('ratelimit and models tabs', () => {
  it('rate limit: bounds of duration, count and success count; an out-of-range stored value fails the form', async () => {
    const { calls } = optionServer({ ...baseOptions, ModelRequestRateLimitSuccessCount: '0' });
    await openSettings('tab=ratelimit');
    const card = await panel('模型请求速率限制');
    const duration = within(card).getByLabelText('限制周期（分钟）');
    const count = within(card).getByLabelText('用户每周期最多请求次数');
    const success = within(card).getByLabelText('用户每周期最多请求完成次数');
    expect([duration, count, success].map((input) => input.getAttribute('aria-valuemin'))).toEqual(['0', '0', '1']);
    expect(within(card).getByText('包括失败请求的次数，0 代表不限制')).toBeTruthy();
    fireEvent.click(saveButton(card, '模型请求速率限制'));
    expect(await screen.findByText('请检查输入')).toBeTruthy();
    expect(await within(card).findByText('取值范围为 1 ~ ∞')).toBeTruthy();
    fireEvent.change(duration, { target: { value: '-5' } });
    fireEvent.blur(duration);
    fireEvent.change(success, { target: { value: '0' } });
    fireEvent.blur(success);
    await waitFor(() => expect((success as HTMLInputElement).value).toBe('1'));
    fireEvent.change(success, { target: { value: '20' } });
    fireEvent.blur(success);
    fireEvent.click(saveButton(card, '模型请求速率限制'));
    expect(await screen.findByText('保存成功')).toBeTruthy();
    expect(puts(calls)).toEqual(
      [
        { key: 'ModelRequestRateLimitDurationMinutes', value: '0' },
        { key: 'ModelRequestRateLimitSuccessCount', value: '20' },
      ].filter((entry) => puts(calls).some((put) => put.key === entry.key)),
    );
    expect(puts(calls).find((entry) => entry.key === 'ModelRequestRateLimitSuccessCount')).toEqual({
      key: 'ModelRequestRateLimitSuccessCount',
      value: '20',
    });
    expect(Number(puts(calls).find((entry) => entry.key === 'ModelRequestRateLimitDurationMinutes')?.value ?? '1')).toBeGreaterThanOrEqual(
      0,
    );
  });

  it('models: ping interval needs ping on and is at least 1 s; thinking budget 0.1 to 1; JSON checked on blur', async () => {
    const { calls } = optionServer(baseOptions);
    await openSettings('tab=models');
    const global = await panel('通用模型设置');
    const interval = within(global).getByLabelText('心跳间隔（秒）') as HTMLInputElement;
    expect(interval.disabled).toBe(true);
    expect(interval.getAttribute('aria-valuemin')).toBe('1');
    fireEvent.click(within(global).getByRole('switch', { name: '启用流式心跳' }));
    await waitFor(() => expect(interval.disabled).toBe(false));
    fireEvent.change(interval, { target: { value: '0' } });
    fireEvent.blur(interval);
    await waitFor(() => expect(interval.value).toBe('1'));

    const claude = await panel('Claude 设置');
    const budget = within(claude).getByLabelText('思考预算占比') as HTMLInputElement;
    expect([budget.getAttribute('aria-valuemin'), budget.getAttribute('aria-valuemax')]).toEqual(['0.1', '1']);
    fireEvent.change(budget, { target: { value: '1.5' } });
    fireEvent.blur(budget);
    await waitFor(() => expect(Number(budget.value)).toBe(1));

    const gemini = await panel('Gemini 设置');
    const safety = within(gemini).getByLabelText('Gemini 安全设置');
    fireEvent.change(safety, { target: { value: '{"default": OFF}' } });
    fireEvent.blur(safety);
    expect(await within(gemini).findByText('不是合法的 JSON 字符串')).toBeTruthy();

    fireEvent.click(saveButton(global, '通用模型设置'));
    expect(await screen.findByText('保存成功')).toBeTruthy();
    expect(puts(calls)).toEqual([
      { key: 'general_setting.ping_interval_enabled', value: 'true' },
      { key: 'general_setting.ping_interval_seconds', value: '1' },
    ]);
  });

  it('monitoring: the periodic channel test is switched on with its interval, at least 1 minute', async () => {
    const { calls } = optionServer({
      ...baseOptions,
      'monitor_setting.auto_test_channel_enabled': 'false',
      'monitor_setting.auto_test_channel_minutes': '10',
    });
    await openSettings('tab=operation&section=monitoring');
    const monitoring = await panel('监控设置');
    const minutes = within(monitoring).getByLabelText('测试间隔（分钟）') as HTMLInputElement;
    expect(minutes.disabled).toBe(true);
    expect(minutes.getAttribute('aria-valuemin')).toBe('1');
    fireEvent.click(within(monitoring).getByRole('switch', { name: '定时测试所有通道' }));
    await waitFor(() => expect(minutes.disabled).toBe(false));
    fireEvent.change(minutes, { target: { value: '30' } });
    fireEvent.blur(minutes);
    fireEvent.click(saveButton(monitoring, '监控设置'));
    expect(await screen.findByText('保存成功')).toBeTruthy();
    expect(puts(calls)).toEqual([
      { key: 'monitor_setting.auto_test_channel_enabled', value: 'true' },
      { key: 'monitor_setting.auto_test_channel_minutes', value: '30' },
    ]);
  });

  it('performance: the overload guard is off by default; its thresholds are edited while it is on', async () => {
    const { calls } = optionServer({
      ...baseOptions,
      'performance_setting.monitor_enabled': 'false',
      'performance_setting.monitor_event_loop_lag_ms': '200',
      'performance_setting.monitor_cpu_threshold': '90',
      'performance_setting.monitor_memory_threshold': '90',
    });
    await openSettings('tab=operation&section=performance');
    const performance = await panel('性能设置');
    const lag = within(performance).getByLabelText('事件循环延迟阈值（毫秒）') as HTMLInputElement;
    const memory = within(performance).getByLabelText('内存阈值（%）') as HTMLInputElement;
    expect([lag.disabled, memory.disabled]).toEqual([true, true]);
    expect(memory.getAttribute('aria-valuemax')).toBe('100');
    fireEvent.click(within(performance).getByRole('switch', { name: '实例过载时拒绝中继请求' }));
    await waitFor(() => expect(lag.disabled).toBe(false));
    fireEvent.change(lag, { target: { value: '500' } });
    fireEvent.blur(lag);
    fireEvent.change(memory, { target: { value: '120' } });
    fireEvent.blur(memory);
    await waitFor(() => expect(memory.value).toBe('100'));
    fireEvent.click(saveButton(performance, '性能设置'));
    expect(await screen.findByText('保存成功')).toBeTruthy();
    expect(puts(calls)).toEqual([
      { key: 'performance_setting.monitor_enabled', value: 'true' },
      { key: 'performance_setting.monitor_event_loop_lag_ms', value: '500' },
      { key: 'performance_setting.monitor_memory_threshold', value: '100' },
    ]);
  });
});
