import type { SelfUser as SelfRow } from '@modelgate/shared';
import { selfKey } from '../../../lib/api/self';
import { http } from '../../../lib/http';

/**
 * What the bindings panels (helper-owned: BindingsPanel and its test, WeChatBindModal,
 * TelegramBindModal) still import from here; the personal feature's own endpoints are one file
 * each (get-aff-code.ts, update-self.ts, ...) and its components take the shared SelfUser.
 */
export type SelfUser = Pick<
  SelfRow,
  'id' | 'username' | 'display_name' | 'email' | 'github_id' | 'oidc_id' | 'wechat_id' | 'telegram_id' | 'linux_do_id'
  | 'quota' | 'used_quota' | 'request_count' | 'group' | 'role' | 'aff_count' | 'aff_quota' | 'aff_history_quota'
> & Partial<Pick<SelfRow, 'aff_code' | 'setting'>>;
export const selfQueryKey = selfKey;

export const bindWeChat = (code: string) => http.get<unknown>('/api/oauth/wechat/bind', { query: { code } });
