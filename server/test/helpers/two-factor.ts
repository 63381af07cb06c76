import { generate } from 'otplib';
import { expect } from 'vitest';
import type { ApiClient } from './api-client.js';

const period = 30;
const currentStep = () => Math.floor(Date.now() / 1000 / period);

/**
 * An authenticator app in the test: the secret, and the last step it gave a code for. The server
 * accepts a step once and only after the last one accepted, within one step of now.
 */
export interface Authenticator {
  secret: string;
  lastStep: number;
}

/**
 * The next code the server will accept: for the current step, else (that one spent) the next
 * step's, else it waits for time to move on. A code of now or later stays valid if a step boundary
 * passes before the server checks it, so these never flake at a boundary.
 */
export async function nextCode(app: Authenticator): Promise<string> {
  for (;;) {
    const now = currentStep();
    const step = Math.max(now, app.lastStep + 1);
    if (step <= now + 1) {
      app.lastStep = step;
      return generate({ secret: app.secret, epoch: step * period });
    }
    await new Promise((resolve) => setTimeout(resolve, (now + 1) * period * 1000 - Date.now() + 50));
  }
}

/** A code the server must refuse: the step before the last one used (a replay of an old code). */
export async function codeOfStep(app: Authenticator, step: number): Promise<string> {
  return generate({ secret: app.secret, epoch: step * period });
}

/** Enrols TOTP for a signed-in client through the API; answers the authenticator and the recovery codes. */
export async function enrolTotp(client: ApiClient): Promise<{ app: Authenticator; recoveryCodes: string[] }> {
  const setup = await client.post('/api/user/2fa/setup');
  expect(setup.status, setup.text).toBe(200);
  const app: Authenticator = { secret: setup.body.data.secret, lastStep: 0 };
  const enabled = await client.post('/api/user/2fa/enable', { code: await nextCode(app) });
  expect(enabled.status, enabled.text).toBe(200);
  return { app, recoveryCodes: enabled.body.data.backup_codes };
}
