import { request, type Dispatcher, type FormData } from 'undici';
import type { AppContext } from '../../api/context.js';
import { RelayError, UpstreamError, relayErrors } from '../errors.js';
import type { RelayEndpoint, UpstreamTarget } from '../providers/types.js';
import type { RelayState } from '../state.js';
import type { RelayChannel } from './channel-index.js';
import { disableChannelIfBanned } from './auto-disable.js';

export type UpstreamBody = { kind: 'json'; value: Record<string, unknown> } | { kind: 'form'; value: FormData };

export interface UpstreamCall {
  endpoint: RelayEndpoint;
  /** Model the client asked for (selection and billing use it). */
  model: string;
  group: string;
  pinnedChannelId: number | null;
  /** Builds the body for one channel, given the model after the channel's mapping. */
  buildBody(channel: RelayChannel, upstreamModel: string): UpstreamBody;
  signal: AbortSignal;
}

export interface UpstreamSuccess {
  channel: RelayChannel;
  upstreamModel: string;
  response: Dispatcher.ResponseData;
  /** Channel ids tried, in order (admin_info.use_channel). */
  tried: number[];
}

const maxErrorBody = 64 * 1024;

export function targetOf(channel: RelayChannel, dispatcher: Dispatcher): UpstreamTarget {
  const headers: Record<string, string> = {};
  if (channel.type === 1 && channel.organization) headers['OpenAI-Organization'] = channel.organization;
  const key = channel.keys.length <= 1 ? (channel.keys[0] ?? '') : channel.keys[Math.floor(Math.random() * channel.keys.length)]!;
  return { baseURL: channel.baseURL, key, headers, other: channel.other, dispatcher };
}

async function readLimited(body: Dispatcher.ResponseData['body']): Promise<string> {
  let text = '';
  for await (const chunk of body) {
    if (text.length < maxErrorBody) text += (chunk as Buffer).toString('utf8');
  }
  return text.slice(0, maxErrorBody);
}

async function callChannel(channel: RelayChannel, call: UpstreamCall, dispatcher: Dispatcher): Promise<{ response: Dispatcher.ResponseData; upstreamModel: string }> {
  const adapter = channel.adapter;
  if (!adapter || !adapter.endpoints.has(call.endpoint)) {
    throw new UpstreamError(400, `渠道 #${channel.id} 不支持此接口`, 'unsupported_endpoint', '');
  }
  const upstreamModel = channel.modelMapping?.[call.model] || call.model;
  const target = targetOf(channel, dispatcher);
  const body = call.buildBody(channel, upstreamModel);
  const headers = adapter.api.headers(target);
  let payload: string | FormData;
  if (body.kind === 'json') {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.value);
  } else {
    payload = body.value;
  }
  let response: Dispatcher.ResponseData;
  try {
    response = await request(adapter.api.url(call.endpoint, target, upstreamModel), {
      method: 'POST',
      headers,
      body: payload as string,
      dispatcher,
      signal: call.signal,
    });
  } catch (error) {
    if (call.signal.aborted) throw new RelayError(499, 'client_closed', '客户端已断开');
    throw new UpstreamError(0, `上游连接失败：${(error as Error).message}`, null, '');
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return { response, upstreamModel };
  const text = await readLimited(response.body).catch(() => '');
  const parsed = adapter.errors.parse(response.statusCode, text);
  throw new UpstreamError(response.statusCode, parsed.message, parsed.code, text);
}

function mapStatus(channel: RelayChannel | null, error: UpstreamError): RelayError {
  const mapped = channel?.statusCodeMapping?.[String(error.upstreamStatus)];
  const status = mapped !== undefined ? Number(mapped) : NaN;
  if (!Number.isInteger(status) || status < 100 || status > 599) return error;
  return new RelayError(status, error.code, error.message, error.retryable);
}

/**
 * Picks a channel and calls it; on a retryable failure tries up to RetryTimes other channels
 * (never one that already failed in this request). A pinned channel is tried once.
 */
export async function dispatchWithFailover(ctx: AppContext, relay: RelayState, call: UpstreamCall): Promise<UpstreamSuccess> {
  const failed = new Set<number>();
  const tried: number[] = [];
  const attempts = call.pinnedChannelId !== null ? 1 : 1 + Math.max(0, ctx.options.number('RetryTimes'));
  let lastError: UpstreamError | null = null;
  let lastChannel: RelayChannel | null = null;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const channel = call.pinnedChannelId !== null
      ? relay.channels.findById(call.pinnedChannelId)
      : relay.channels.select(call.group, call.model, failed);
    if (!channel) {
      if (lastError) break;
      if (call.pinnedChannelId !== null) throw new RelayError(503, 'channel_not_found', `渠道 #${call.pinnedChannelId} 不存在或已被禁用`);
      throw relayErrors.noChannel(call.group, call.model);
    }
    tried.push(channel.id);
    try {
      const { response, upstreamModel } = await callChannel(channel, call, relay.dispatcher);
      return { channel, upstreamModel, response, tried };
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      failed.add(channel.id);
      lastError = error;
      lastChannel = channel;
      disableChannelIfBanned(ctx, relay, channel, error);
      if (!error.retryable) break;
    }
  }
  throw mapStatus(lastChannel, lastError!);
}
