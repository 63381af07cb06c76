import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { Usage } from '../../relay/billing/quota.js';
import { StreamingTokenCounter } from '../billing/token-count.js';
import { RelayError } from '../errors.js';
import type { ChunkTransform } from '../providers/types.js';
import { streamErrorFrame } from './chunk-handlers.js';

export interface StreamOptions {
  upstream: Dispatcher.ResponseData;
  out: ServerResponse;
  transform: ChunkTransform;
  /** The client asked for stream_options.include_usage: forward (or synthesize) the usage chunk. */
  clientWantsUsage: boolean;
  idleTimeoutMs: number;
  pingIntervalMs: number;
  /** Aborts the upstream request (client gone or idle). */
  abort: (reason: string) => void;
  startedAt: number;
  model: string;
  /** Tokenizes the request's prompt; only called when the upstream reported no usage. */
  countPromptTokens: () => number;
}

export interface StreamOutcome {
  /** Upstream usage, or prompt and streamed text counted here when the upstream sent none. */
  usage: Usage;
  isUsageCounted: boolean;
  frtMs: number;
  isClientGone: boolean;
  isIdleTimeout: boolean;
}

const done = 'data: [DONE]\n\n';

/** Unparsed event text kept for counting (read-only transforms) before it is counted in one go. */
const maxDeferredChars = 64 * 1024;

/**
 * The one streaming pipeline: splits upstream SSE into events, runs the provider's chunk transform on
 * each data event, totals usage as chunks pass, and writes to the client with backpressure.
 *
 * Fast path for read-only transforms (OpenAI wire): an event without `"usage"` in it is passed on
 * unparsed; its text is kept (up to maxDeferredChars, then counted) and only parsed and counted if the
 * stream ends without usage. With upstream usage, only the usage event is parsed and no tokenizer runs.
 * Memory per stream is bounded by one upstream read, the deferred text and the counter's small buffer.
 */
export async function pipeStream(options: StreamOptions): Promise<StreamOutcome> {
  const { out, transform } = options;
  const decoder = new TextDecoder();
  const counter = new StreamingTokenCounter();
  let carry = '';
  let usage: Usage | null = null;
  let frtMs = 0;
  let isClientGone = false;
  let isIdleTimeout = false;
  let isLastUsageChunkSeen = false;
  let lastId = '';
  let streamError: unknown = null;
  const isReadOnly = transform.isReadOnly === true;
  let deferred: string[] = [];
  let deferredChars = 0;
  /** Latest passed-through event, parsed for its id only if a usage chunk must be synthesized. */
  let lastUnparsed: string | null = null;

  const countDeferred = () => {
    for (const data of deferred) {
      let chunk: Record<string, unknown>;
      try {
        chunk = JSON.parse(data) as Record<string, unknown>;
      } catch {
        continue;
      }
      const verdict = transform.onChunk(chunk);
      if (verdict.text) counter.push(verdict.text);
    }
    deferred = [];
    deferredChars = 0;
  };

  const onClose = () => {
    if (!out.writableFinished) {
      isClientGone = true;
      options.abort('client closed');
    }
  };
  out.on('close', onClose);
  const idle = setTimeout(() => {
    isIdleTimeout = true;
    options.abort('stream idle timeout');
  }, options.idleTimeoutMs);
  const ping = options.pingIntervalMs > 0
    ? setInterval(() => {
      if (!out.writableEnded) out.write(': PING\n\n');
    }, options.pingIntervalMs)
    : null;

  const handleLine = (line: string): string => {
    if (!line.startsWith('data:')) return '';
    const hasSpace = line.charCodeAt(5) === 32;
    const data = hasSpace ? line.slice(6) : line.slice(5);
    if (data === '[DONE]') return '';
    if (isReadOnly && !data.includes('"usage"')) {
      if (usage === null) {
        deferred.push(data);
        deferredChars += data.length;
        if (deferredChars > maxDeferredChars) countDeferred();
      }
      lastUnparsed = data;
      if (frtMs === 0) frtMs = Date.now() - options.startedAt;
      return hasSpace ? `${line}\n\n` : `data: ${data}\n\n`;
    }
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return `data: ${data}\n\n`;
    }
    const verdict = transform.onChunk(chunk);
    if (typeof chunk.id === 'string') {
      lastId = chunk.id;
      lastUnparsed = null;
    }
    if (verdict.usage) {
      usage = verdict.usage;
      deferred = [];
      deferredChars = 0;
    } else if (verdict.text && usage === null) {
      if (isReadOnly) {
        deferred.push(data);
        deferredChars += data.length;
        if (deferredChars > maxDeferredChars) countDeferred();
      } else {
        counter.push(verdict.text);
      }
    }
    if (verdict.usage) {
      if (verdict.isUsageOnly) {
        isLastUsageChunkSeen = true;
        if (!options.clientWantsUsage) return '';
      }
    }
    if (frtMs === 0) frtMs = Date.now() - options.startedAt;
    return `data: ${verdict.isModified ? JSON.stringify(chunk) : data}\n\n`;
  };

  try {
    for await (const piece of options.upstream.body) {
      idle.refresh();
      carry += decoder.decode(piece as Buffer, { stream: true });
      let output = '';
      let start = 0;
      let newline = carry.indexOf('\n', start);
      while (newline !== -1) {
        let line = carry.slice(start, newline);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (line.length > 0 && line.charCodeAt(0) !== 58 /* ':' comment */) output += handleLine(line);
        start = newline + 1;
        newline = carry.indexOf('\n', start);
      }
      carry = start === 0 ? carry : carry.slice(start);
      if (output && !out.writableEnded && !out.destroyed) {
        if (!out.write(output)) await Promise.race([once(out, 'drain'), once(out, 'close')]);
      }
    }
    if (carry.trim()) {
      const output = handleLine(carry.trim());
      if (output && !out.destroyed) out.write(output);
    }
  } catch (error) {
    // Aborted (client gone, idle) or the upstream broke mid-stream: bill what was produced, and
    // tell the client (below) with an error event before [DONE].
    streamError = isIdleTimeout ? new RelayError(504, 'stream_idle_timeout', '上游流式响应超时') : error;
  } finally {
    clearTimeout(idle);
    if (ping) clearInterval(ping);
    out.off('close', onClose);
  }
  const isUsageCounted = usage === null;
  let final: Usage;
  if (usage === null) {
    countDeferred();
    final = { promptTokens: options.countPromptTokens(), completionTokens: counter.finish(), cachedTokens: 0 };
  } else {
    final = usage;
  }
  if (!out.destroyed && !out.writableEnded) {
    if (options.clientWantsUsage && !isLastUsageChunkSeen) {
      if (lastUnparsed !== null) {
        try {
          const id = (JSON.parse(lastUnparsed) as Record<string, unknown>).id;
          if (typeof id === 'string') lastId = id;
        } catch {
          // keep the last id seen
        }
      }
      const synthesized = {
        id: lastId, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: options.model, choices: [],
        usage: { prompt_tokens: final.promptTokens, completion_tokens: final.completionTokens, total_tokens: final.promptTokens + final.completionTokens },
      };
      out.write(`data: ${JSON.stringify(synthesized)}\n\n`);
    }
    out.end(streamError !== null ? streamErrorFrame('openai', streamError) + done : done);
  }
  return { usage: final, isUsageCounted, frtMs, isClientGone, isIdleTimeout };
}
