import type { Usage } from '../billing/quota.js';
import { StreamingTokenCounter } from '../billing/token-count.js';
import type { StreamEvent } from '../providers/types.js';
import type { FramingDecoder } from './framing.js';
import type { StreamCodec } from './stream-driver.js';

/** What one upstream event (or the end of the stream) gives the client and the bill. */
export interface EventStep {
  output: string;
  /** Completion text the event added (counted only when the upstream reports no usage). */
  text: string;
  /** Usage known after the event (cumulative; the last non-null value wins). */
  usage: Usage | null;
  /** The answer is complete before the upstream ended, which is no longer read (a sensitive word cut it). */
  isLast?: boolean;
  /** The answer is complete; the upstream is read on for its usage (a stop sequence the gateway applies matched). */
  isComplete?: boolean;
  /** The event carried content whose tokens are not counted here (a fan-out's calls report their own: jobs/fan-out.ts). */
  isContent?: boolean;
}

/**
 * Per-request handling of a converted or passed-through stream: `onEvent` per decoded upstream
 * event (it may throw an UpstreamError for an in-stream error), `end` once the upstream is done
 * (flushes the transform), `close` the closing frames with the final usage.
 */
export interface EventHandler {
  onEvent(event: StreamEvent): EventStep;
  end(): EventStep;
  close(usage: Usage): string;
  /**
   * The closing frames when the stream breaks after the first byte (in-stream error, upstream gone,
   * idle timeout): the error in the client's format (then whatever ends that format's stream).
   */
  fail?(error: unknown, usage: Usage): string;
}

/**
 * The codec of upstreams that are not passed through as OpenAI SSE (converted providers, native
 * pass-through, inbound formats), for the one stream driver (stream-driver.ts): upstream bytes →
 * framing decoder → the handler's per-provider transform → client frames. Usage is totalled as
 * events pass; the streamed text is counted, and billed when the upstream reports no usage or the
 * stream ends before its final usage (a client that left is billed what was produced, never less).
 * Opening frames are held until the first content, so an error right after them still fails over.
 */
export class EventCodec implements StreamCodec {
  failure: unknown = null;
  readonly holdsUntilContent = true;
  hasContent = false;
  isAnswered = false;
  isComplete = false;
  private readonly counter = new StreamingTokenCounter();
  private last: Usage | null = null;

  constructor(
    private readonly decoder: FramingDecoder,
    private readonly handler: EventHandler,
  ) {}

  private take(step: EventStep): string {
    if (step.usage) this.last = step.usage;
    if (step.isLast) this.isAnswered = true;
    if (step.isComplete) this.isComplete = true;
    if (step.text) {
      this.counter.push(step.text);
      this.hasContent = true;
    } else if (step.isContent) {
      this.hasContent = true;
    }
    return step.output;
  }

  /** Runs the handler over decoded events; what came before an in-stream error still goes out. */
  private feed(events: () => Iterable<StreamEvent>, isEnd: boolean): string {
    let output = '';
    try {
      for (const event of events()) {
        output += this.take(this.handler.onEvent(event));
        // Answered (a sensitive word cut it): what the upstream sent after it is neither passed on nor billed.
        if (this.isAnswered) return output;
      }
      if (isEnd) output += this.take(this.handler.end());
    } catch (caught) {
      this.failure = caught;
    }
    return output;
  }

  push(piece: Buffer): string {
    return this.feed(() => this.decoder.push(piece), false);
  }

  end(): string {
    return this.feed(() => this.decoder.finish(), true);
  }

  billedUsage(isComplete: boolean, countPromptTokens: () => number): Usage {
    const streamed = this.counter.finish();
    const reported = this.last;
    if (reported === null) return { promptTokens: countPromptTokens(), completionTokens: streamed, cachedTokens: 0 };
    if (isComplete) return reported;
    // Ended before the upstream's final usage (client gone, idle, broken): what was streamed counts.
    return {
      ...reported,
      promptTokens: reported.promptTokens || countPromptTokens(),
      completionTokens: Math.max(reported.completionTokens, streamed),
    };
  }

  close(usage: Usage, error: unknown): string {
    return error !== null && this.handler.fail ? this.handler.fail(error, usage) : this.handler.close(usage);
  }
}
