import { setupRootAndLogin, type LoggedIn } from './accounts.js';
import { createRelayToken, createRelayUser } from './relay-fixtures.js';
import { startSteadyOpenAi, type SteadyOpenAi } from './steady-openai.js';
import { startTestServer, type TestServer } from './test-server.js';

/** A server with its root signed in, a steady OpenAI upstream, and a user's API key with room to spend. */
export interface SteadyRelay {
  server: TestServer;
  upstream: SteadyOpenAi;
  root: LoggedIn;
  apiKey: string;
  stop(): Promise<void>;
}

/** Starts the pieces of a test that stores odd values and relays through them (channels are the test's own). */
export async function startSteadyRelay(): Promise<SteadyRelay> {
  const server = await startTestServer();
  const upstream = await startSteadyOpenAi();
  const root = await setupRootAndLogin(server);
  const userId = await createRelayUser(server.ctx, { quota: 1e12 });
  const { apiKey } = await createRelayToken(server.ctx, userId, { remainQuota: 1e11 });
  return {
    server,
    upstream,
    root,
    apiKey,
    async stop() {
      await server.stop();
      await upstream.close();
    },
  };
}
