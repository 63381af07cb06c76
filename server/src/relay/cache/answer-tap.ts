import type { ServerResponse } from 'node:http';

type Write = (...args: unknown[]) => boolean;
type End = (...args: unknown[]) => ServerResponse;

/** A keep-alive comment of the stream driver: not part of the answer, not replayed. */
const pingFrame = ': PING\n\n';

/**
 * Copies what a call writes to its client: each write as it was made (a stream's frames keep their
 * boundaries), whichever responder wrote it — the stream driver, the OpenAI pass-through or an
 * exchange's send. It wraps `write` and `end` of this one response (no other response pays for
 * it) and gives them back when the response finishes or closes. Past `maxBytes` it stops copying:
 * the answer is too big to keep.
 */
export class AnswerTap {
  readonly chunks: Buffer[] = [];
  private bytes = 0;
  private isTooBig = false;
  private readonly ended: Promise<boolean>;

  constructor(
    readonly out: ServerResponse,
    private readonly maxBytes: number,
  ) {
    const write = out.write as unknown as Write;
    const end = out.end as unknown as End;
    const tapped = out as unknown as { write: Write; end: End };
    tapped.write = (...args) => {
      this.copy(args[0]);
      return write.apply(out, args);
    };
    tapped.end = (...args) => {
      if (typeof args[0] !== 'function') this.copy(args[0]);
      return end.apply(out, args);
    };
    this.ended = new Promise<boolean>((resolve) => {
      const done = (isFinished: boolean) => {
        out.off('finish', onFinish);
        out.off('close', onClose);
        tapped.write = write;
        tapped.end = end;
        resolve(isFinished);
      };
      const onFinish = () => done(true);
      const onClose = () => done(out.writableFinished);
      out.on('finish', onFinish);
      out.on('close', onClose);
    });
  }

  /** True once the whole answer went out (the response finished), false when it was cut or too big. */
  async whenComplete(): Promise<boolean> {
    return (await this.ended) && !this.isTooBig;
  }

  private copy(chunk: unknown): void {
    if (this.isTooBig || chunk === undefined || chunk === null) return;
    if (chunk === pingFrame) return;
    const bytes =
      typeof chunk === 'string'
        ? Buffer.from(chunk, 'utf8')
        : Buffer.isBuffer(chunk)
          ? chunk
          : chunk instanceof Uint8Array
            ? Buffer.from(chunk)
            : null;
    if (bytes === null || bytes.length === 0) return;
    this.bytes += bytes.length;
    if (this.bytes > this.maxBytes) {
      this.isTooBig = true;
      this.chunks.length = 0;
      return;
    }
    this.chunks.push(bytes);
  }
}
