import type { WebAuthnCredential } from '@simplewebauthn/server';
import type { Db } from '../../db/index.js';
import type { PasskeyCredentialsTable } from '../../db/schema.js';
import type { Selectable } from 'kysely';

type CredentialRow = Pick<Selectable<PasskeyCredentialsTable>, 'credential_id' | 'public_key' | 'counter' | 'transports'>;

export const maxPasskeysPerUser = 20;

export function transportsOf(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

/** A stored row as simplewebauthn's credential. */
export const toWebAuthnCredential = (row: CredentialRow): WebAuthnCredential => ({
  id: row.credential_id,
  publicKey: new Uint8Array(Buffer.from(row.public_key, 'base64url')),
  counter: Number(row.counter),
  transports: transportsOf(row.transports),
});

export async function credentialsOfUser(db: Db, userId: number) {
  return db
    .selectFrom('passkey_credentials')
    .select([
      'id',
      'credential_id',
      'public_key',
      'counter',
      'transports',
      'name',
      'device_type',
      'backed_up',
      'created_at',
      'last_used_at',
    ])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
}

/** The list the personal settings show: no key material. */
export async function listPasskeys(db: Db, userId: number) {
  return (await credentialsOfUser(db, userId)).map((row) => ({
    id: row.id,
    name: row.name,
    device_type: row.device_type,
    backed_up: row.backed_up === 1,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  }));
}
