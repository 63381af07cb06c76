import { idParam, passkeyNameSchema } from '@modelgate/shared';
import { z } from 'zod';

export { passkeyNameSchema };

/** base64url text as WebAuthn's JSON forms carry it. */
const base64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*$/, '必须是 base64url 编码');
const transports = z.array(z.string().max(32)).max(10);
const attachment = z.enum(['platform', 'cross-platform']).optional();
const extensions = z.record(z.string().max(64), z.unknown()).default({});

/** What navigator.credentials.create() gives (as @simplewebauthn/browser's startRegistration answers it). */
export const registrationResponseSchema = z.object({
  id: base64url(1400),
  rawId: base64url(1400),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url(8192),
    attestationObject: base64url(65536),
    authenticatorData: base64url(65536).optional(),
    transports: transports.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url(8192).optional(),
  }),
  authenticatorAttachment: attachment,
  clientExtensionResults: extensions,
});

/** What navigator.credentials.get() gives (startAuthentication's answer). */
export const authenticationResponseSchema = z.object({
  id: base64url(1400),
  rawId: base64url(1400),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url(8192),
    authenticatorData: base64url(65536),
    signature: base64url(8192),
    userHandle: base64url(1024).optional(),
  }),
  authenticatorAttachment: attachment,
  clientExtensionResults: extensions,
});

export const registerFinishSchema = z.object({
  name: passkeyNameSchema.shape.name,
  response: registrationResponseSchema,
});

export const authenticationFinishSchema = z.object({ response: authenticationResponseSchema });

export const passkeyIdParamsSchema = z.object({ id: idParam() });
