import { z } from 'zod';
import { idField } from './fields.js';
import { maxPageSize, passwordMaxLength, passwordMinLength, Role, usernameMaxLength, defaultPageSize } from '../constants.js';

/**
 * Request rules of the accounts area (setup, login, register, self service, user management,
 * options), shared by the server and the console. Spec messages are root-level issues, so the
 * server's parseInput answers them verbatim (without a field prefix).
 */
export const accountMessages = {
  loginFieldsRequired: '请输入用户名和密码！',
  exclusiveModes: '自用模式和演示站点模式不能同时开启',
  usernamePasswordRequired: '用户名和密码不能为空！',
  usernameTooLong: `用户名长度不得超过 ${usernameMaxLength} 位！`,
  passwordTooShort: `密码长度不得小于 ${passwordMinLength} 位！`,
  passwordTooLong: `密码长度不得大于 ${passwordMaxLength} 位！`,
  passwordMismatch: '两次输入的密码不一致',
  emailRequired: '请输入邮箱！',
  verificationCodeRequired: '请输入邮箱验证码！',
  setupUsernameRequired: 'please enter admin username',
  setupUsernameTooLong: `username must be at most ${usernameMaxLength} characters`,
  setupPasswordTooShort: `password must be at least ${passwordMinLength} characters`,
  setupPasswordTooLong: `password must be at most ${passwordMaxLength} characters`,
  setupPasswordMismatch: 'the two passwords entered do not match',
  invalidEmail: '邮箱地址格式不正确',
  webhookUrlHttpsOnly: 'Webhook 地址必须以 https:// 开头',
  webhookUrlRequired: '请填写 Webhook 地址',
  notificationEmailInvalid: '通知邮箱格式不正确',
  quotaMustBeInteger: '额度必须是非负整数',
} as const;

type Rule<T> = readonly [isBroken: (value: T) => boolean, message: string];

/** Adds the first broken rule as a root-level issue (its message is the whole error). */
function firstBroken<T>(rules: ReadonlyArray<Rule<T>>) {
  return (value: T, ctx: z.RefinementCtx) => {
    for (const [isBroken, message] of rules) {
      if (isBroken(value)) {
        ctx.addIssue({ code: 'custom', message });
        return;
      }
    }
  };
}

const text = (max: number) => z.string().max(max);
const isTooShort = (password: string) => password.length < passwordMinLength;
const isTooLong = (password: string) => password.length > passwordMaxLength;
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const isEmail = (value: string): boolean => value.length <= 191 && emailPattern.test(value);

/** The password rules (8 to 20 characters) with the register messages. */
function passwordRules<T extends { password: string }>(): Array<Rule<T>> {
  return [
    [(v) => isTooShort(v.password), accountMessages.passwordTooShort],
    [(v) => isTooLong(v.password), accountMessages.passwordTooLong],
  ];
}

export const setupSchema = z
  .object({
    username: text(200).default(''),
    password: text(200).default(''),
    confirmPassword: text(200).default(''),
    SelfUseModeEnabled: z.boolean().default(false),
    DemoSiteEnabled: z.boolean().default(false),
  })
  .superRefine(
    firstBroken([
      [(v) => v.username === '', accountMessages.setupUsernameRequired],
      [(v) => v.username.length > usernameMaxLength, accountMessages.setupUsernameTooLong],
      [(v) => isTooShort(v.password), accountMessages.setupPasswordTooShort],
      [(v) => isTooLong(v.password), accountMessages.setupPasswordTooLong],
      [(v) => v.password !== v.confirmPassword, accountMessages.setupPasswordMismatch],
    ]),
  );
/** Only the usage mode matters once an admin exists. */
export const setupModeSchema = z
  .object({
    SelfUseModeEnabled: z.boolean().default(false),
    DemoSiteEnabled: z.boolean().default(false),
  })
  .refine((mode) => !(mode.SelfUseModeEnabled && mode.DemoSiteEnabled), { message: accountMessages.exclusiveModes });

export const loginSchema = z
  .object({ username: text(200).default(''), password: text(200).default('') })
  .superRefine(firstBroken([[(v) => v.username === '' || v.password === '', accountMessages.loginFieldsRequired]]));

const registerFields = z.object({
  username: text(200).default(''),
  password: text(200).default(''),
  password2: text(200).optional(),
  email: text(191).default(''),
  verification_code: text(64).default(''),
  aff_code: text(32).default(''),
});
export const registerSchema = registerFields.superRefine(
  firstBroken<z.infer<typeof registerFields>>([
    [(v) => v.username === '' || v.password === '', accountMessages.usernamePasswordRequired],
    [(v) => v.username.length > usernameMaxLength, accountMessages.usernameTooLong],
    ...passwordRules(),
    [(v) => v.password2 !== undefined && v.password2 !== v.password, accountMessages.passwordMismatch],
    [(v) => v.email !== '' && !isEmail(v.email), accountMessages.invalidEmail],
  ]),
);

/** Rules for edits where username and password are optional (an empty password means "unchanged"). */
function optionalCredentialRules<T extends { username?: string; password?: string }>(): Array<Rule<T>> {
  return [
    [(v) => v.username !== undefined && v.username === '', accountMessages.usernamePasswordRequired],
    [(v) => (v.username ?? '').length > usernameMaxLength, accountMessages.usernameTooLong],
    [(v) => !!v.password && isTooShort(v.password), accountMessages.passwordTooShort],
    [(v) => !!v.password && isTooLong(v.password), accountMessages.passwordTooLong],
  ];
}

/** PUT /api/user/self: every field optional; an empty password means "unchanged". */
export const updateSelfSchema = z
  .object({
    username: text(200).optional(),
    display_name: text(64).optional(),
    password: text(200).optional(),
    original_password: text(200).optional(),
  })
  .superRefine(firstBroken([...optionalCredentialRules()]));

const roleValues = [Role.user, Role.admin, Role.root] as const;

const createUserFields = z.object({
  username: text(200).default(''),
  password: text(200).default(''),
  display_name: text(64).default(''),
  role: z.union(roleValues.map((role) => z.literal(role))).default(Role.user),
});
export const createUserSchema = createUserFields.superRefine(
  firstBroken<z.infer<typeof createUserFields>>([
    [(v) => v.username === '' || v.password === '', accountMessages.usernamePasswordRequired],
    [(v) => v.username.length > usernameMaxLength, accountMessages.usernameTooLong],
    ...passwordRules(),
  ]),
);

/** PUT /api/user/: the console sends the whole row; unknown and read-only fields are dropped. */
const updateUserFields = z.object({
  id: idField(),
  username: text(200).optional(),
  display_name: text(64).optional(),
  password: text(200).optional(),
  group: z.string().min(1).max(64).optional(),
  quota: z.number().optional(),
  email: text(191).optional(),
  remark: text(255).optional(),
});
export const updateUserSchema = updateUserFields.superRefine(
  firstBroken<z.infer<typeof updateUserFields>>([
    ...optionalCredentialRules(),
    [(v) => v.quota !== undefined && (!Number.isSafeInteger(v.quota) || v.quota < 0), accountMessages.quotaMustBeInteger],
    [(v) => !!v.email && !isEmail(v.email), accountMessages.invalidEmail],
  ]),
);

export const manageActions = ['promote', 'demote', 'disable', 'enable', 'delete'] as const;
export type ManageAction = (typeof manageActions)[number];
export const manageUserSchema = z.object({ id: idField(), action: z.enum(manageActions) });

export const affTransferSchema = z.object({ quota: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

export const notifyTypes = ['email', 'webhook'] as const;
export const userSettingSchema = z
  .object({
    notify_type: z.enum(notifyTypes).default('email'),
    quota_warning_threshold: z.number().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
    webhook_url: text(1000).default(''),
    webhook_secret: text(1000).default(''),
    notification_email: text(191).default(''),
    accept_unset_model_ratio_model: z.boolean().default(false),
  })
  .superRefine(
    firstBroken([
      [(v) => v.webhook_url !== '' && !/^https:\/\/[^\s/]+/i.test(v.webhook_url), accountMessages.webhookUrlHttpsOnly],
      [(v) => v.notify_type === 'webhook' && v.webhook_url === '', accountMessages.webhookUrlRequired],
      [(v) => v.notification_email !== '' && !isEmail(v.notification_email), accountMessages.notificationEmailInvalid],
    ]),
  );

/** Query numbers arrive as strings; '' counts as absent. */
const queryInt = (fallback: number) =>
  z.preprocess((raw) => (raw === '' || raw === undefined ? undefined : Number(raw)), z.number().int().default(fallback));

export const userPageQuerySchema = z.object({
  p: queryInt(1).pipe(z.number().int().min(1)),
  page_size: queryInt(defaultPageSize)
    .pipe(z.number().int().min(1))
    .transform((size) => Math.min(size, maxPageSize)),
});

export const userSearchQuerySchema = userPageQuerySchema.extend({
  keyword: text(200).default(''),
  group: text(64).default(''),
});

export const optionUpdateSchema = z.object({
  key: z.string().min(1).max(191),
  value: z.union([z.string(), z.number(), z.boolean()]).transform((value) => String(value)),
});

export type SetupInput = z.infer<typeof setupSchema>;
export type LoginInput = z.infer<typeof loginSchema>;
export type RegisterInput = z.infer<typeof registerSchema>;
export type UpdateSelfInput = z.infer<typeof updateSelfSchema>;
export type CreateUserInput = z.infer<typeof createUserSchema>;
export type UpdateUserInput = z.infer<typeof updateUserSchema>;
export type ManageUserInput = z.infer<typeof manageUserSchema>;
export type UserSettingInput = z.infer<typeof userSettingSchema>;
export type UserPageQuery = z.infer<typeof userPageQuerySchema>;
export type UserSearchQuery = z.infer<typeof userSearchQuerySchema>;
export type OptionUpdateInput = z.infer<typeof optionUpdateSchema>;

/** What the console sends (before defaults): the request payload types of the accounts area. */
export type SetupPayload = z.input<typeof setupSchema>;
export type LoginPayload = z.input<typeof loginSchema>;
export type RegisterPayload = z.input<typeof registerSchema>;
export type UpdateSelfPayload = z.input<typeof updateSelfSchema>;
export type CreateUserPayload = z.input<typeof createUserSchema>;
export type UpdateUserPayload = z.input<typeof updateUserSchema>;
export type UserSettingPayload = z.input<typeof userSettingSchema>;
