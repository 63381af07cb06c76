import { LogType } from '@modelgate/shared';
import type { AppContext } from '../../context.js';
import type { NewLog } from '../../db/schema.js';
import { clientStatus, redactUpstreamText, RelayError } from '../errors.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import type { AttemptTrace } from '../routing/attempt-loop.js';
import type { RelayState } from '../state.js';

/** A relayed call that failed, as its error log row (type 5) records it. */
export interface FailedCall {
  caller: RelayCaller;
  /** The model the caller asked for. */
  model: string;
  /** What the call ended with (the caller's answer: a RelayError, or anything else as a 500). */
  error: unknown;
  /** What the attempt loop did (channels tried, the upstream failure), when it ran. */
  trace: AttemptTrace | null;
  isStream: boolean;
  /** ms, when the call started. */
  startedAt: number;
  requestPath: string;
}

const internalError = () => new RelayError(500, 'internal_error', '服务器内部错误，请联系管理员');

/**
 * Records a failed relayed call as an error log row (type 5) when `ErrorLogEnabled` is on, as
 * new-api's RecordErrorLog does: quota 0, through the write-behind UsageWriter (no database write on
 * the request path, no counter touched, so the ledger stays exact). A client that went away is no
 * failure of the call and is not recorded. Never throws: logging must not change the caller's answer.
 */
export function recordFailedCall(ctx: AppContext, relay: RelayState, call: FailedCall): void {
  if (!ctx.options.bool('ErrorLogEnabled')) return;
  const error = call.error instanceof RelayError ? call.error : internalError();
  if (error.code === 'client_closed') return;
  relay.usage.queueLog(new ErrorLogRecord(call, error, Date.now(), call.caller.user.username, call.caller.token?.name ?? ''));
}

/**
 * An error log row as the call ended, built into the row (redaction, `other` JSON) only when the
 * write-behind flush writes it: the failing request keeps one small object.
 */
class ErrorLogRecord {
  constructor(
    private readonly call: FailedCall,
    private readonly error: RelayError,
    private readonly now: number,
    private readonly username: string,
    private readonly tokenName: string,
  ) {}

  toRow(): NewLog {
    return errorLogRow(this.call, this.error, this.now, this.username, this.tokenName);
  }
}

/**
 * The row: `content` is the error text with keys, URLs, hosts and IP addresses removed (the upstream's
 * own message when an upstream failed, else the caller's answer); `other` holds the status answered,
 * the error type and code, the request path and, for operators, the channels tried and the upstream's status.
 */
export function errorLogRow(call: FailedCall, error: RelayError, now: number, username: string, tokenName: string): NewLog {
  const { caller, trace } = call;
  const upstream = trace?.upstream ?? null;
  const text = (upstream ? redactUpstreamText(upstream.message) : '') || redactUpstreamText(error.message);
  const channelId = trace?.channel?.id ?? 0;
  const adminInfo: Record<string, unknown> = { use_channel: (trace?.tried ?? []).map(String) };
  if (upstream) {
    adminInfo.upstream_status = upstream.upstreamStatus;
    if (upstream.upstreamCode !== null) adminInfo.upstream_code = redactUpstreamText(upstream.upstreamCode).slice(0, 64);
  }
  const other = {
    status_code: clientStatus(error),
    error_type: error.type,
    error_code: error.code,
    request_path: call.requestPath,
    group: caller.group,
    admin_info: adminInfo,
  };
  return {
    user_id: caller.user.id,
    created_at: Math.floor(now / 1000),
    type: LogType.error,
    content: text,
    username,
    token_name: tokenName,
    model_name: call.model,
    quota: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    use_time: Math.max(0, Math.floor((now - call.startedAt) / 1000)),
    is_stream: call.isStream ? 1 : 0,
    channel_id: channelId,
    token_id: caller.token?.id ?? 0,
    group: caller.group,
    ip: '',
    other: JSON.stringify(other),
  };
}
