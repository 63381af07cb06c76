/** Query keys of the personal feature; the self row's key is lib/api/self.ts's selfKey. */
export const personalKeys = {
  affCode: ['aff-code'] as const,
};

/** Query keys of the personal second factors; every second-factor mutation invalidates `all`. */
export const twoFactorKeys = {
  all: ['two-factor'] as const,
  passkeys: () => [...twoFactorKeys.all, 'passkeys'] as const,
};
