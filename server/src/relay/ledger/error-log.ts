import { LogType, type LogOtherFields } from '@modelgate/shared';
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
  relay.usage.queueLog(new ErrorLogRecord(snapshotOf(call, error, Date.now())));
}

/**
 * What the row needs, taken when the call ends: small (the upstream's text is cut, its body is not
 * kept) so queued rows stay light while the database is away; names as they were at the failure.
 */
interface FailureSnapshot {
  userId: number;
  username: string;
  tokenId: number;
  tokenName: string;
  group: string;
  model: string;
  channelId: number;
  /** The last channel's name and type as they were (admin_info; the channel may be renamed or deleted later). */
  channelName: string | null;
  channelType: number | null;
  tried: number[];
  status: number;
  type: string;
  code: string;
  /** The upstream's message when an upstream failed, else the caller's answer (redacted when the row is built). */
  text: string;
  upstreamStatus: number | null;
  upstreamCode: string | null;
  isStream: boolean;
  startedAt: number;
  now: number;
  requestPath: string;
}

/** Longest error text kept before redaction (the row keeps at most 500 characters after it). */
const maxKeptText = 4000;

function snapshotOf(call: FailedCall, error: RelayError, now: number): FailureSnapshot {
  const { caller, trace } = call;
  const upstream = trace?.upstream ?? null;
  return {
    userId: caller.user.id,
    username: caller.user.username,
    tokenId: caller.token?.id ?? 0,
    tokenName: caller.token?.name ?? '',
    group: caller.group,
    model: call.model,
    channelId: trace?.channel?.id ?? 0,
    channelName: trace?.channel?.name ?? null,
    channelType: trace?.channel?.type ?? null,
    tried: trace ? [...trace.tried] : [],
    status: clientStatus(error),
    type: error.type,
    code: error.code,
    text: (upstream?.message || error.message).slice(0, maxKeptText),
    upstreamStatus: upstream ? upstream.upstreamStatus : null,
    upstreamCode: upstream?.upstreamCode?.slice(0, 200) ?? null,
    isStream: call.isStream,
    startedAt: call.startedAt,
    now,
    requestPath: call.requestPath,
  };
}

/** A queued error log, turned into its row (redaction, `other` JSON) only when the write-behind flush writes it. */
class ErrorLogRecord {
  constructor(private readonly failure: FailureSnapshot) {}

  toRow(): NewLog {
    return errorLogRow(this.failure);
  }
}

/**
 * The row: `content` is the error text with keys, URLs, hosts and IP addresses removed (the upstream's
 * own message when an upstream failed, else the caller's answer); `other` holds the status answered,
 * the error type and code, the request path and, for operators, the channels tried and the upstream's status.
 */
function errorLogRow(failure: FailureSnapshot): NewLog {
  const adminInfo: Record<string, unknown> = { use_channel: failure.tried.map(String) };
  if (failure.channelName !== null) {
    adminInfo.channel_name = failure.channelName;
    adminInfo.channel_type = failure.channelType;
  }
  if (failure.upstreamStatus !== null) adminInfo.upstream_status = failure.upstreamStatus;
  if (failure.upstreamCode !== null) adminInfo.upstream_code = redactUpstreamText(failure.upstreamCode).slice(0, 64);
  const other: LogOtherFields = {
    status_code: failure.status,
    error_type: failure.type,
    error_code: failure.code,
    request_path: failure.requestPath,
    group: failure.group,
    admin_info: adminInfo,
  };
  return {
    user_id: failure.userId,
    created_at: Math.floor(failure.now / 1000),
    type: LogType.error,
    content: redactUpstreamText(failure.text),
    username: failure.username,
    token_name: failure.tokenName,
    model_name: failure.model,
    quota: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    use_time: Math.max(0, Math.floor((failure.now - failure.startedAt) / 1000)),
    is_stream: failure.isStream ? 1 : 0,
    channel_id: failure.channelId,
    token_id: failure.tokenId,
    group: failure.group,
    ip: '',
    other: JSON.stringify(other),
  };
}
