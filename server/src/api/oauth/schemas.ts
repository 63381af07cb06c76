import { z } from 'zod';

export const stateQuerySchema = z.object({ aff: z.string().max(32).default('') });

/** The provider's redirect as the callback screen forwards it. */
export const callbackQuerySchema = z.object({
  code: z.string().min(1, '缺少授权码 code').max(1024),
  state: z.string().max(128).default(''),
  iss: z.string().max(1024).default(''),
});

/** POST /api/oauth/oidc/discovery: the well-known URL to fetch (http or https). */
export const oidcDiscoveryBodySchema = z.object({
  well_known: z
    .string()
    .trim()
    .max(2048, 'Well-Known URL 过长')
    .refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
      } catch {
        return false;
      }
    }, 'Well-Known URL 必须是 http:// 或 https:// 开头的地址'),
});

export const callbackParamsSchema = z.object({ provider: z.enum(['github', 'oidc', 'linuxdo']) });

export const weChatQuerySchema = z.object({
  code: z
    .string()
    .min(1, '请输入验证码')
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, '验证码格式错误'),
});

const widgetText = z.string().max(512);

/** The login widget's fields; fields Telegram may add later are kept, since they are signed too. */
export const telegramQuerySchema = z
  .object({
    id: z.string().regex(/^\d{1,20}$/, 'id 格式错误'),
    auth_date: z.string().regex(/^\d{1,12}$/, 'auth_date 格式错误'),
    hash: z.string().regex(/^[0-9a-fA-F]{64}$/, 'hash 格式错误'),
    first_name: widgetText.optional(),
    last_name: widgetText.optional(),
    username: widgetText.optional(),
    photo_url: widgetText.optional(),
    lang: z.string().max(16).optional(),
  })
  .catchall(widgetText)
  .refine((fields) => Object.keys(fields).length <= 16, '参数过多');

export const unbindParamsSchema = z.object({ provider: z.enum(['github', 'oidc', 'linuxdo', 'wechat', 'telegram']) });
