import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUser, fakeServer, ok, renderRoute } from '../../../test/render-route';

const row = (id: number, username: string, role: number, extra: Record<string, unknown> = {}) => ({
  id,
  username,
  display_name: username,
  quota: 0,
  used_quota: 0,
  request_count: 0,
  group: 'default',
  role,
  status: 1,
  deleted_at: null,
  ...extra,
});

const users = [
  row(1, 'root', 100),
  row(2, 'ops', 10),
  row(3, 'alice', 1),
  row(4, 'bob', 1, { status: 2 }),
  row(5, 'gone', 1, { deleted_at: 1700000000 }),
  row(6, 'ops2', 10),
];

const operator = { id: 2, username: 'ops', display_name: 'ops', role: 10, status: 1, group: 'default' };

function userServer() {
  return fakeServer({
    'GET /api/user/': () => ok({ items: users, page: 1, page_size: 10, total: users.length }),
    'GET /api/group/': () => ok(['default']),
  });
}

/** The action buttons of one row, by their labels. */
async function actionsOf(username: string): Promise<string[]> {
  const cell = await screen.findByText(username, { selector: 'strong' });
  const tableRow = cell.closest('tr') as HTMLElement;
  return within(tableRow)
    .queryAllByRole('button')
    .map((button) => (button.textContent ?? '').replace(/\s+/g, ''));
}

describe('user list row actions follow what the server allows', () => {
  it('shows the root every action on lower users, only edit on its own row, and nothing on a cancelled one', async () => {
    userServer();
    await renderRoute('/user', { user: adminUser });
    expect(await actionsOf('root')).toEqual(['编辑']);
    expect(await actionsOf('ops')).toEqual(['降级', '禁用', '编辑', '注销']);
    expect(await actionsOf('alice')).toEqual(['提升', '禁用', '编辑', '注销']);
    expect(await actionsOf('bob')).toEqual(['提升', '启用', '编辑', '注销']);
    expect(await actionsOf('gone')).toEqual([]);
  });

  it('shows an admin no action on the root or another admin, and no promote', async () => {
    userServer();
    await renderRoute('/user', { user: operator });
    expect(await actionsOf('root')).toEqual([]);
    expect(await actionsOf('ops')).toEqual([]);
    expect(await actionsOf('ops2')).toEqual([]);
    expect(await actionsOf('alice')).toEqual(['禁用', '编辑', '注销']);
    expect(await actionsOf('bob')).toEqual(['启用', '编辑', '注销']);
  });
});
