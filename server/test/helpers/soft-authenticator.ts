import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64u = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

interface Credential {
  id: Buffer;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
}

/**
 * A software WebAuthn authenticator for API tests, the outside party of a passkey ceremony: it makes
 * ES256 credentials and answers creation and request options the way a browser and an authenticator
 * do together (clientDataJSON with the page's origin, authenticator data with the rp id hash and the
 * flags, a "none" attestation, DER ECDSA signatures). The browser journeys use Chromium's own
 * virtual authenticator instead.
 */
export class SoftAuthenticator {
  readonly credentials: Credential[] = [];
  /** Set the UV flag (the authenticator checked a PIN or biometrics). */
  userVerified = true;

  /** `origin` is the page the ceremony runs on (the browser writes it into clientDataJSON). */
  constructor(public origin: string) {}

  /** Makes a credential (or, with `again`, answers with an existing one, as an authenticator ignoring excludeCredentials would). */
  register(options: PublicKeyCredentialCreationOptionsJSON, again?: Credential): RegistrationResponseJSON {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = again
      ? { privateKey: again.privateKey, publicKey: createPublicKey(again.privateKey) }
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
        [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
      ]),
    );
    const id = again?.id ?? randomBytes(16);
    const credential: Credential = again ?? { id, rpId, userHandle: options.user.id, privateKey, counter: 0 };
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const authData = Buffer.concat([this.header(rpId, 0x40, 0), Buffer.alloc(16), idLength, id, Buffer.from(coseKey)]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    );
    const clientDataJSON = JSON.stringify({
      type: 'webauthn.create',
      challenge: options.challenge,
      origin: this.origin,
      crossOrigin: false,
    });
    if (!again) this.credentials.push(credential);
    return {
      id: b64u(id),
      rawId: b64u(id),
      type: 'public-key',
      response: { clientDataJSON: b64u(clientDataJSON), attestationObject: b64u(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** Answers request options with the first allowed credential (or, discoverable, the first for the rp id). */
  authenticate(options: PublicKeyCredentialRequestOptionsJSON, pick?: Credential): AuthenticationResponseJSON {
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    const allowed = (options.allowCredentials ?? []).map((item) => item.id);
    const credential =
      pick ?? this.credentials.find((item) => item.rpId === rpId && (allowed.length === 0 || allowed.includes(b64u(item.id))));
    if (!credential) throw new Error('no credential for these options');
    credential.counter += 1;
    const authData = this.header(credential.rpId, 0, credential.counter);
    const clientDataJSON = JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: this.origin, crossOrigin: false });
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: b64u(credential.id),
      rawId: b64u(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** rpIdHash, flags (UP, UV when set, plus `extra`), signCount. */
  private header(rpId: string, extra: number, counter: number): Buffer {
    const flags = 0x01 | (this.userVerified ? 0x04 : 0) | extra;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count]);
  }
}
