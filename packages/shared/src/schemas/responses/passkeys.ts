import { z } from 'zod';

/** One of the caller's passkeys (GET /api/user/passkey): never its key material. */
export const passkeySchema = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  /** 'singleDevice' or 'multiDevice'. */
  device_type: z.string(),
  backed_up: z.boolean(),
  created_at: z.number().int(),
  /** Unix seconds of the last sign-in with it, 0 when never used. */
  last_used_at: z.number().int(),
});
export type Passkey = z.infer<typeof passkeySchema>;

/** The caller's passkeys. */
export const passkeyListSchema = z.array(passkeySchema);

/** A WebAuthn PublicKeyCredentialDescriptorJSON: a credential the browser excludes or may use. */
export const credentialDescriptorSchema = z.strictObject({
  id: z.string(),
  type: z.literal('public-key'),
  transports: z.array(z.string()).optional(),
});

const userVerification = z.enum(['required', 'preferred', 'discouraged']);

/** Creation options for navigator.credentials.create() (PublicKeyCredentialCreationOptionsJSON, POST /api/user/passkey/register/begin). */
export const passkeyCreationOptionsSchema = z.strictObject({
  challenge: z.string(),
  rp: z.strictObject({ name: z.string(), id: z.string() }),
  user: z.strictObject({ id: z.string(), name: z.string(), displayName: z.string() }),
  pubKeyCredParams: z.array(z.strictObject({ alg: z.number().int(), type: z.literal('public-key') })),
  timeout: z.number().int(),
  attestation: z.enum(['none', 'direct', 'enterprise', 'indirect']),
  excludeCredentials: z.array(credentialDescriptorSchema),
  authenticatorSelection: z.strictObject({
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
    residentKey: z.enum(['required', 'preferred', 'discouraged']),
    requireResidentKey: z.boolean(),
    userVerification,
  }),
  extensions: z.strictObject({ credProps: z.boolean() }),
  hints: z.array(z.enum(['security-key', 'client-device', 'hybrid'])),
});
export type PasskeyCreationOptions = z.infer<typeof passkeyCreationOptionsSchema>;

/** Request options for navigator.credentials.get() (PublicKeyCredentialRequestOptionsJSON, the sign-in begin routes). */
export const passkeyRequestOptionsSchema = z.strictObject({
  rpId: z.string(),
  challenge: z.string(),
  /** The user's own passkeys for a second step; empty for a sign-in instead of the password. */
  allowCredentials: z.array(credentialDescriptorSchema),
  timeout: z.number().int(),
  userVerification,
});
export type PasskeyRequestOptions = z.infer<typeof passkeyRequestOptionsSchema>;
