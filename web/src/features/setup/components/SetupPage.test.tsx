import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeServer, ok, renderScreen } from '../../../test/render-route';
import { SetupPage } from './SetupPage';

describe('setup screen', () => {
  it('says the server address is needed for reset mail, third-party sign-in and payment callbacks', async () => {
    fakeServer({ 'GET /api/setup': () => ok({ status: false, root_init: false, database_type: 'postgres' }) });
    await renderScreen('/setup', <SetupPage />);
    expect(await screen.findByText('初始化后请填写服务器地址')).toBeTruthy();
    expect(screen.getByText(/密码重置邮件、GitHub \/ OIDC \/ Linux DO 登录和支付回调都需要它/)).toBeTruthy();
  });

  it('says it in English too', async () => {
    fakeServer({ 'GET /api/setup': () => ok({ status: false, root_init: true, database_type: 'sqlite' }) });
    await renderScreen('/setup', <SetupPage />, { language: 'en' });
    expect(await screen.findByText('Set the server address after initialization')).toBeTruthy();
    expect(screen.getByText(/Password-reset mail, GitHub \/ OIDC \/ Linux DO sign-in and payment callbacks need it/)).toBeTruthy();
  });
});
