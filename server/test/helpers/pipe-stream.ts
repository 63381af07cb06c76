import { OpenAiSseCodec, type OpenAiSseOptions } from '../../src/relay/stream/openai-sse-codec.js';
import { StreamDriver, type StreamDriverOptions, type StreamDriverOutcome, type StreamOut } from '../../src/relay/stream/stream-driver.js';

/** The OpenAI-wire stream as the relay drives it: the one stream driver with the OpenAI SSE codec. */
export type StreamOptions = Omit<StreamDriverOptions, 'codec' | 'out'> & Omit<OpenAiSseOptions, 'startedAt'> & { out: unknown };
export type StreamOutcome = StreamDriverOutcome & { isUsageCounted: boolean };

export interface OpenAiStream {
  data(piece: Buffer): boolean;
  end(): void;
  error(error: Error): void;
  readonly done: Promise<StreamOutcome>;
}

export function openAiStream(options: StreamOptions, resume: () => void): OpenAiStream {
  const codec = new OpenAiSseCodec({
    transform: options.transform,
    clientWantsUsage: options.clientWantsUsage,
    startedAt: options.startedAt,
    model: options.model,
  });
  const driver = new StreamDriver({ ...options, out: options.out as StreamOut, codec }, resume);
  // Whether the bill was counted is read when the stream is done (the codec's state then).
  const done = driver.done.then((outcome) => ({ ...outcome, isUsageCounted: codec.isUsageCounted }));
  return { data: (piece) => driver.data(piece), end: () => driver.end(), error: (error) => driver.error(error), done };
}

/**
 * The OpenAI stream pulled from an async iterable of upstream pieces, as a Readable body would feed
 * it; the gateway itself pushes pieces from undici's dispatch handler (upstream-answer.ts).
 */
export async function pipeStream(options: StreamOptions & { upstream: { body: AsyncIterable<unknown> } }): Promise<StreamOutcome> {
  let resume: () => void = () => undefined;
  const stream = openAiStream(options, () => resume());
  try {
    for await (const piece of options.upstream.body) {
      if (!stream.data(piece as Buffer)) await new Promise<void>((resolve) => (resume = resolve));
    }
    stream.end();
  } catch (error) {
    stream.error(error as Error);
  }
  return stream.done;
}
