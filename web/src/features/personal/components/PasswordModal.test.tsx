import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeServer, ok, regularUser, renderScreen } from '../../../test/render-route';
import { PasswordModal } from './PasswordModal';

describe('change password', () => {
  it('asks for the current password and sends it with the new one', async () => {
    const { calls } = fakeServer({ 'PUT /api/user/self': () => ok(null) });
    await renderScreen('/personal', <PasswordModal open onClose={() => undefined} />, { user: regularUser });
    const dialog = within(await screen.findByRole('dialog'));
    fireEvent.click(dialog.getByText(/^确\s*定$/));
    expect(await screen.findByText('请输入原密码')).toBeTruthy();
    fireEvent.change(dialog.getByLabelText('原密码'), { target: { value: 'old-pass-1' } });
    fireEvent.change(dialog.getByLabelText('新密码'), { target: { value: 'new-pass-12' } });
    fireEvent.change(dialog.getByLabelText('确认新密码'), { target: { value: 'new-pass-12' } });
    fireEvent.click(dialog.getByText(/^确\s*定$/));
    await waitFor(() =>
      expect(calls.filter((call) => call.method === 'PUT').map((call) => call.body)).toEqual([
        { original_password: 'old-pass-1', password: 'new-pass-12' },
      ]),
    );
    expect(await screen.findByText('密码修改成功！')).toBeTruthy();
  });
});
