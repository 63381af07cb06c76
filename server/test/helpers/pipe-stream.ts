import { SseRelay, type StreamOptions, type StreamOutcome } from '../../src/relay/pipeline/stream.js';

/**
 * The SSE relay pulled from an async iterable of upstream pieces, as a Readable body would feed it;
 * the gateway itself pushes pieces from undici's dispatch handler (upstream-answer.ts).
 */
export async function pipeStream(options: StreamOptions & { upstream: { body: AsyncIterable<unknown> } }): Promise<StreamOutcome> {
  let resume: () => void = () => undefined;
  const relay = new SseRelay(options, () => resume());
  try {
    for await (const piece of options.upstream.body) {
      if (!relay.data(piece as Buffer)) await new Promise<void>((resolve) => (resume = resolve));
    }
    relay.end();
  } catch (error) {
    relay.error(error as Error);
  }
  return relay.done;
}
