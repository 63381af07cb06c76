import WebSocket from 'ws';
import { UpstreamError } from '../errors.js';
import type { RelayChannel } from '../routing/channel-index.js';
import { buildAzureHeaders, buildAzureRealtimeUrl } from '../providers/azure/api.js';
import { parseOpenAiError } from '../providers/openai/errors.js';
import type { UpstreamTarget } from '../providers/types.js';

/** Channel types that serve /v1/realtime: 1 OpenAI, 3 Azure OpenAI. */
export const realtimeChannelTypes: ReadonlySet<number> = new Set([1, 3]);

export interface RealtimeUpstreamRequest {
  url: string;
  headers: Record<string, string>;
}

const toWebSocketUrl = (url: string) =>
  url.replace(/\/+$/, '').replace(/^http(s?):\/\//i, (_match, secure: string) => (secure ? 'wss://' : 'ws://'));

/**
 * OpenAI: `wss://{base host and path}/v1/realtime?model={m}` with Bearer and `OpenAI-Beta` (the
 * client's value, else `realtime=v1`); Azure: the adapter's `/openai/realtime?api-version&deployment`
 * URL with `api-key`.
 */
export function buildRealtimeRequest(
  channel: RelayChannel,
  target: UpstreamTarget,
  upstreamModel: string,
  client: { beta?: string; apiVersion?: string },
): RealtimeUpstreamRequest {
  if (channel.type === 3) {
    return { url: buildAzureRealtimeUrl(target, upstreamModel, client.apiVersion), headers: buildAzureHeaders(target) };
  }
  const base = toWebSocketUrl(target.baseURL);
  const prefix = base.endsWith('/v1') ? base : `${base}/v1`;
  const headers: Record<string, string> = { ...target.headers, 'OpenAI-Beta': client.beta || 'realtime=v1' };
  if (target.key) headers.Authorization = `Bearer ${target.key}`;
  return { url: `${prefix}/realtime?model=${encodeURIComponent(upstreamModel)}`, headers };
}

const maxErrorBody = 16 * 1024;

/**
 * The largest message an upstream may send: 16 MiB, as a line of an HTTP stream (stream/framing.ts).
 * ws's default is 100 MiB, held whole before it is relayed; past this ws closes the upstream (1009).
 */
export const maxUpstreamMessageBytes = 16 * 1024 * 1024;

export type UpstreamFrames = Array<[WebSocket.RawData, boolean]>;

/**
 * Opens the upstream socket. Resolves once it is open; rejects with an UpstreamError carrying the
 * handshake status (0 for a network error or timeout) and the upstream's OpenAI-style message.
 * `timeoutMs` bounds the whole handshake, a refusal's body included: ws's own timeout is an idle
 * timer, which an upstream sending a byte now and then would keep from ever firing.
 */
export function connectUpstream(
  request: RealtimeUpstreamRequest,
  timeoutMs: number,
): Promise<{ socket: WebSocket; early: UpstreamFrames }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(request.url, {
      headers: request.headers,
      handshakeTimeout: timeoutMs,
      perMessageDeflate: false,
      maxPayload: maxUpstreamMessageBytes,
    });
    let isSettled = false;
    // Replaced by the refusal's reader once a status is known: what was read by then is the answer.
    let onDeadline = () => fail(new UpstreamError(0, '上游连接失败：Opening handshake has timed out', null, ''));
    const deadline = setTimeout(() => onDeadline(), timeoutMs);
    const fail = (error: UpstreamError) => {
      if (isSettled) return;
      isSettled = true;
      clearTimeout(deadline);
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.terminate();
      reject(error);
    };
    socket.once('open', () => {
      isSettled = true;
      clearTimeout(deadline);
      socket.removeAllListeners();
      // Frames that came with the handshake are emitted at once: keep them for the bridge.
      const early: UpstreamFrames = [];
      socket.on('message', (data, isBinary) => early.push([data, isBinary]));
      socket.on('error', () => undefined);
      socket.pause();
      resolve({ socket, early });
    });
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      const finish = () => {
        const status = response.statusCode ?? 502;
        const parsed = parseOpenAiError(status, text);
        fail(new UpstreamError(status, parsed.message, parsed.code, text.slice(0, maxErrorBody)));
      };
      onDeadline = finish;
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        // Enough to tell the error: the rest of a long (or endless) body is not waited for.
        if (text.length >= maxErrorBody) finish();
      });
      response.once('end', finish);
      response.once('error', finish);
      response.once('close', finish);
    });
    socket.once('error', (error) => fail(new UpstreamError(0, `上游连接失败：${error.message}`, null, '')));
  });
}
