export const Role = { guest: 0, user: 1, admin: 10, root: 100 } as const;
export const UserStatus = { enabled: 1, disabled: 2 } as const;
export const TokenStatus = { enabled: 1, disabled: 2, expired: 3, exhausted: 4 } as const;
export const ChannelStatus = { enabled: 1, manuallyDisabled: 2, autoDisabled: 3 } as const;
export const RedemptionStatus = { unused: 1, disabled: 2, used: 3 } as const;
/** Log rows by type (new-api's numbers): 5 a failed relayed call, 6 quota given back (a failed task). */
export const LogType = { unknown: 0, topup: 1, consume: 2, manage: 3, system: 4, error: 5, refund: 6 } as const;

export const usernameMaxLength = 12;
export const passwordMinLength = 8;
export const passwordMaxLength = 20;
export const defaultGroup = 'default';
export const defaultQuotaPerUnit = 500000;
export const pageSizeOptions = [10, 20, 50, 100] as const;
export const defaultPageSize = 10;
export const maxPageSize = 100;
