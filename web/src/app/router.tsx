import { lazy, type ReactNode } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { NotFoundPage } from '../components/NotFoundPage';
import { HomePage } from '../features/home/components/HomePage';
import { RequireAdmin, RequireAuth, RequireRoot } from './guards';
import { AppShell } from './layouts/AppShell';

// Each screen is its own chunk, loaded when its route is first visited (AppShell's Suspense shows a
// spinner meanwhile); the home page and the 404 ship with the shell.
const LoginPage = lazy(() => import('../features/auth/components/LoginPage').then((module) => ({ default: module.LoginPage })));
const OAuthCallbackPage = lazy(() =>
  import('../features/auth/components/OAuthCallbackPage').then((module) => ({ default: module.OAuthCallbackPage })),
);
const PasswordResetConfirmPage = lazy(() =>
  import('../features/auth/components/PasswordResetConfirmPage').then((module) => ({ default: module.PasswordResetConfirmPage })),
);
const PasswordResetRequestPage = lazy(() =>
  import('../features/auth/components/PasswordResetRequestPage').then((module) => ({ default: module.PasswordResetRequestPage })),
);
const RegisterPage = lazy(() => import('../features/auth/components/RegisterPage').then((module) => ({ default: module.RegisterPage })));
const ChannelListPage = lazy(() =>
  import('../features/channels/components/ChannelListPage').then((module) => ({ default: module.ChannelListPage })),
);
const ChatPage = lazy(() => import('../features/chat/components/ChatPage').then((module) => ({ default: module.ChatPage })));
const ChatRedirectPage = lazy(() =>
  import('../features/chat/components/ChatRedirectPage').then((module) => ({ default: module.ChatRedirectPage })),
);
const DashboardPage = lazy(() =>
  import('../features/dashboard/components/DashboardPage').then((module) => ({ default: module.DashboardPage })),
);
const AboutPage = lazy(() => import('../features/home/components/AboutPage').then((module) => ({ default: module.AboutPage })));
const LogsPage = lazy(() => import('../features/logs/components/LogsPage').then((module) => ({ default: module.LogsPage })));
const PersonalPage = lazy(() =>
  import('../features/personal/components/PersonalPage').then((module) => ({ default: module.PersonalPage })),
);
const PlaygroundPage = lazy(() =>
  import('../features/playground/components/PlaygroundPage').then((module) => ({ default: module.PlaygroundPage })),
);
const PricingPage = lazy(() => import('../features/pricing/components/PricingPage').then((module) => ({ default: module.PricingPage })));
const RedemptionListPage = lazy(() =>
  import('../features/redemptions/components/RedemptionListPage').then((module) => ({ default: module.RedemptionListPage })),
);
const SettingsPage = lazy(() =>
  import('../features/settings/components/SettingsPage').then((module) => ({ default: module.SettingsPage })),
);
const SetupPage = lazy(() => import('../features/setup/components/SetupPage').then((module) => ({ default: module.SetupPage })));
const DrawingLogPage = lazy(() =>
  import('../features/task-logs/components/DrawingLogPage').then((module) => ({ default: module.DrawingLogPage })),
);
const MusicLogPage = lazy(() =>
  import('../features/task-logs/components/MusicLogPage').then((module) => ({ default: module.MusicLogPage })),
);
const TokenListPage = lazy(() =>
  import('../features/tokens/components/TokenListPage').then((module) => ({ default: module.TokenListPage })),
);
const UserListPage = lazy(() => import('../features/users/components/UserListPage').then((module) => ({ default: module.UserListPage })));
const SubscriptionPage = lazy(() =>
  import('../features/subscriptions/components/SubscriptionPage').then((module) => ({ default: module.SubscriptionPage })),
);
const PlansAdminPage = lazy(() =>
  import('../features/subscriptions/components/PlansAdminPage').then((module) => ({ default: module.PlansAdminPage })),
);
const AuditPage = lazy(() => import('../features/audit/components/AuditPage').then((module) => ({ default: module.AuditPage })));
const WalletPage = lazy(() => import('../features/wallet/components/WalletPage').then((module) => ({ default: module.WalletPage })));

const authed = (element: ReactNode) => <RequireAuth>{element}</RequireAuth>;
const admin = (element: ReactNode) => <RequireAdmin>{element}</RequireAdmin>;
const root = (element: ReactNode) => <RequireRoot>{element}</RequireRoot>;

/** The route table. */
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
      { path: '/subscription', element: authed(<SubscriptionPage />) },
      { path: '/plans', element: admin(<PlansAdminPage />) },
      { path: '/audit', element: root(<AuditPage />) },
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
