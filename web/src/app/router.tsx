import type { ReactNode } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { NotFoundPage } from '../components/NotFoundPage';
import { LoginPage } from '../features/auth/components/LoginPage';
import { OAuthCallbackPage } from '../features/auth/components/OAuthCallbackPage';
import { PasswordResetConfirmPage } from '../features/auth/components/PasswordResetConfirmPage';
import { PasswordResetRequestPage } from '../features/auth/components/PasswordResetRequestPage';
import { RegisterPage } from '../features/auth/components/RegisterPage';
import { ChannelListPage } from '../features/channels/components/ChannelListPage';
import { ChatPage } from '../features/chat/components/ChatPage';
import { ChatRedirectPage } from '../features/chat/components/ChatRedirectPage';
import { DashboardPage } from '../features/dashboard/components/DashboardPage';
import { AboutPage } from '../features/home/components/AboutPage';
import { HomePage } from '../features/home/components/HomePage';
import { LogsPage } from '../features/logs/components/LogsPage';
import { PersonalPage } from '../features/personal/components/PersonalPage';
import { PlaygroundPage } from '../features/playground/components/PlaygroundPage';
import { PricingPage } from '../features/pricing/components/PricingPage';
import { RedemptionListPage } from '../features/redemptions/components/RedemptionListPage';
import { SettingsPage } from '../features/settings/components/SettingsPage';
import { SetupPage } from '../features/setup/components/SetupPage';
import { DrawingLogPage } from '../features/task-logs/components/DrawingLogPage';
import { MusicLogPage } from '../features/task-logs/components/MusicLogPage';
import { TokenListPage } from '../features/tokens/components/TokenListPage';
import { UserListPage } from '../features/users/components/UserListPage';
import { WalletPage } from '../features/wallet/components/WalletPage';
import { RequireAdmin, RequireAuth } from './guards';
import { AppShell } from './layouts/AppShell';

const authed = (element: ReactNode) => <RequireAuth>{element}</RequireAuth>;
const admin = (element: ReactNode) => <RequireAdmin>{element}</RequireAdmin>;

/** The route table of spec 01 §2. */
export const routes: RouteObject[] = [
  {
    element: <AppShell />,
    children: [
      { path: '/', element: <HomePage /> },
      { path: '/setup', element: <SetupPage /> },
      { path: '/login', element: <LoginPage /> },
      { path: '/register', element: <RegisterPage /> },
      { path: '/reset', element: <PasswordResetRequestPage /> },
      { path: '/user/reset', element: <PasswordResetConfirmPage /> },
      { path: '/oauth/github', element: <OAuthCallbackPage provider="github" /> },
      { path: '/oauth/oidc', element: <OAuthCallbackPage provider="oidc" /> },
      { path: '/oauth/linuxdo', element: <OAuthCallbackPage provider="linuxdo" /> },
      { path: '/pricing', element: <PricingPage /> },
      { path: '/about', element: <AboutPage /> },
      { path: '/chat/:id?', element: <ChatPage /> },
      { path: '/channel', element: admin(<ChannelListPage />) },
      { path: '/channel/edit/:id', element: admin(<ChannelListPage />) },
      { path: '/channel/add', element: admin(<ChannelListPage />) },
      { path: '/token', element: authed(<TokenListPage />) },
      { path: '/playground', element: authed(<PlaygroundPage />) },
      { path: '/redemption', element: admin(<RedemptionListPage />) },
      { path: '/user', element: admin(<UserListPage />) },
      { path: '/user/edit/:id', element: admin(<UserListPage />) },
      { path: '/user/edit', element: admin(<UserListPage />) },
      { path: '/setting', element: admin(<SettingsPage />) },
      { path: '/personal', element: authed(<PersonalPage />) },
      { path: '/topup', element: authed(<WalletPage />) },
      { path: '/log', element: authed(<LogsPage />) },
      { path: '/detail', element: authed(<DashboardPage />) },
      { path: '/midjourney', element: authed(<DrawingLogPage />) },
      { path: '/task', element: authed(<MusicLogPage />) },
      { path: '/chat2link', element: authed(<ChatRedirectPage />) },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];

export const createAppRouter = () => createBrowserRouter(routes);
