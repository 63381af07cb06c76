import type { Usage } from '../../billing/quota.js';
import { RelayError, UpstreamError } from '../../errors.js';
import { sseHeaders } from '../../pipeline/exchange.js';
import type { Delivery, ResponseContext } from '../../pipeline/respond.js';
import { OpenAiSseCodec } from '../../stream/openai-sse-codec.js';
import { StreamDriver, type StreamOut } from '../../stream/stream-driver.js';
import type { AnswerHead, UpstreamAnswer } from '../../upstream/upstream-answer.js';

/**
 * The OpenAI-wire pass-through, the responder of every request sent as it came to a channel that
 * speaks the OpenAI wire (upstream/dispatch.ts sends it on undici's dispatch API). A stream goes
 * through the one stream driver with the OpenAI SSE codec (usage read from the last event); a
 * non-stream answer goes out as the upstream wrote it, its usage read from the bytes.
 */
export function openAiPassThrough(rc: ResponseContext): Promise<Delivery> | Delivery {
  const { answer, head } = rc;
  if (!answer || !head) throw new Error('the OpenAI pass-through needs a dispatch-API answer');
  return head.body === null ? passStream(rc, answer) : passAnswer(rc, head, head.body);
}

async function passStream(rc: ResponseContext, answer: UpstreamAnswer): Promise<Delivery> {
  const { ctx, job, exchange } = rc;
  const { options } = ctx;
  rc.detach();
  const driver = new StreamDriver(
    {
      out: exchange.raw as unknown as StreamOut,
      codec: new OpenAiSseCodec({
        transform: rc.channel.adapter!.chatStream.createTransform(),
        clientWantsUsage: job.clientWantsUsage,
        startedAt: rc.startedAt,
        model: job.model,
        acceptLanguage: exchange.headers['accept-language'],
      }),
      idleTimeoutMs: ctx.config.streamIdleTimeoutSeconds * 1000,
      pingIntervalMs: options.bool('general_setting.ping_interval_enabled')
        ? options.number('general_setting.ping_interval_seconds') * 1000
        : 0,
      abort: rc.abort,
      startedAt: rc.startedAt,
      countPromptTokens: job.countPromptTokens,
      start: () => exchange.startStream(sseHeaders),
      cancel: () => answer.cancel(),
      acceptLanguage: exchange.headers['accept-language'],
    },
    () => answer.resume(),
  );
  answer.stream(driver);
  const outcome = await driver.done;
  if (!outcome.isStarted && outcome.error !== null && !outcome.isClientGone && !outcome.isIdleTimeout) {
    // Failed before its first byte (an error event first, the upstream gone): another channel may serve it.
    rc.attach();
    if (outcome.error instanceof RelayError) throw outcome.error;
    throw new UpstreamError(0, `读取上游响应失败：${(outcome.error as Error).message}`, null, '');
  }
  return {
    usage: outcome.usage,
    isStream: true,
    frtMs: outcome.frtMs,
    isComplete: outcome.error === null && !outcome.isClientGone && !outcome.isIdleTimeout,
  };
}

/** A non-stream answer passed through as it came: its usage (read fast from the bytes when it can). */
function passAnswer(rc: ResponseContext, head: AnswerHead, bytes: Buffer): Delivery {
  const { job, exchange } = rc;
  const adapter = rc.channel.adapter!;
  const contentType = head.contentType || 'application/json';
  const send = () => exchange.send(head.statusCode, contentType, bytes);
  const frtMs = Date.now() - rc.startedAt;
  if (job.readAnswerUsage)
    return { usage: job.readAnswerUsage(adapter, { bytes, contentType }), isStream: false, frtMs, send, answer: bytes };
  const isJson = contentType.includes('json');
  let usage: Usage | null | undefined = isJson ? job.readUsageFromBytes?.(adapter, bytes) : undefined;
  let parsed: Record<string, unknown> | null = null;
  if (usage === undefined) {
    if (isJson) {
      try {
        parsed = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      } catch {
        parsed = null;
      }
    }
    usage = job.readUsage(adapter, parsed);
  }
  if (!usage) {
    const completion = parsed && job.countCompletionTokens ? job.countCompletionTokens(parsed) : 0;
    usage = { promptTokens: job.countPromptTokens(), completionTokens: completion, cachedTokens: 0 };
  }
  return { usage, isStream: false, frtMs, send, answer: bytes };
}
