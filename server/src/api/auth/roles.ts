export const Role = { guest: 0, user: 1, admin: 10, root: 100 } as const;
export const UserStatus = { enabled: 1, disabled: 2 } as const;

export const isAdminRole = (role: number): boolean => role >= Role.admin;
export const isRootRole = (role: number): boolean => role >= Role.root;
