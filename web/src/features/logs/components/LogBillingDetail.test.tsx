import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { regularUser, renderScreen } from '../../../test/render-route';
import type { LogEntry } from '../api/get-logs';
import { LogBillingDetail } from './LogBillingDetail';

const consumeLog = (other: Record<string, unknown>) =>
  ({
    id: 7,
    created_at: 1_700_000_007,
    type: 2,
    username: 'alice',
    user_id: 2,
    token_name: 'auto-key',
    model_name: 'gpt-4o-mini',
    group: 'default',
    is_stream: 0,
    use_time: 1,
    prompt_tokens: 10,
    completion_tokens: 6,
    quota: 12,
    content: '模型倍率 0.075，补全倍率 4，分组倍率 0.5',
    other: JSON.stringify(other),
  }) as unknown as LogEntry;

describe('consume log billing detail', () => {
  it('shows the auto group a call used and the user group special ratio', async () => {
    const log = consumeLog({
      model_ratio: 0.075,
      model_price: -1,
      completion_ratio: 4,
      group_ratio: 0.5,
      user_group_ratio: 0.5,
      auto_group: 'default',
      requested_group: 'auto',
    });
    await renderScreen('/log', <LogBillingDetail log={log} isAdmin={false} />, { user: regularUser });
    expect(await screen.findByText('auto → default')).toBeTruthy();
    expect(screen.getByText('用户分组专属倍率')).toBeTruthy();
    expect(screen.getByText('自动分组')).toBeTruthy();
  });

  it('leaves both out for a plain call (user_group_ratio -1, no auto group)', async () => {
    const log = consumeLog({ model_ratio: 0.075, model_price: -1, completion_ratio: 4, group_ratio: 1, user_group_ratio: -1 });
    await renderScreen('/log', <LogBillingDetail log={log} isAdmin={false} />, { user: regularUser });
    expect(await screen.findByText('分组倍率')).toBeTruthy();
    expect(screen.queryByText('用户分组专属倍率')).toBeNull();
    expect(screen.queryByText('自动分组')).toBeNull();
  });
});

describe('who paid a consumption row', () => {
  it('shows a call a subscription paid in part: the source, the subscription and each share', async () => {
    const log = consumeLog({
      model_ratio: 1,
      model_price: -1,
      completion_ratio: 1,
      group_ratio: 1,
      billing_source: 'mixed',
      subscription_quota: 500_000,
      wallet_quota: 250_000,
      subscription_id: 4,
    });
    await renderScreen('/log', <LogBillingDetail log={log} isAdmin={false} />, { user: regularUser });
    const paid = await screen.findByTestId('log-paid-by');
    expect(screen.getByText('扣费来源')).toBeTruthy();
    expect(paid.textContent).toBe('订阅 + 钱包订阅 #4：$1.000000 · 钱包：$0.500000');
  });

  it('says nothing for a row of a user without subscription funding', async () => {
    await renderScreen('/log', <LogBillingDetail log={consumeLog({ model_ratio: 1, group_ratio: 1 })} isAdmin={false} />, {
      user: regularUser,
    });
    expect(await screen.findByText('分组倍率')).toBeTruthy();
    expect(screen.queryByTestId('log-paid-by')).toBeNull();
  });
});
