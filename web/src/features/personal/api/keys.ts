/** Query keys of the personal second factors; every second-factor mutation invalidates `all`. */
export const twoFactorKeys = {
  all: ['two-factor'] as const,
  passkeys: () => [...twoFactorKeys.all, 'passkeys'] as const,
};
