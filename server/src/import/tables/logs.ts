import type { TableMapper } from '../table-import.js';
import { flag, int, text, inexactInteger } from '../values.js';

/**
 * logs (with --logs): usage history. one-api counts the time in milliseconds (elapsed_time) where
 * new-api and ModelGate count seconds (use_time), and keeps a request id instead of `other`.
 */
export const logsMapper: TableMapper<'logs'> = {
  source: 'logs',
  target: 'logs',
  noun: 'log',
  naturalKey: 'created_at',
  references: { user_id: 'users', token_id: 'tokens', channel_id: 'channels' },
  droppedColumns: ['system_prompt_reset', 'request_id'],
  map(row, ctx) {
    const id = int(row.id);
    if (id <= 0) return 'it has no id';
    const inexact = inexactInteger(row, ['quota']);
    if (inexact) return inexact;
    const isOneApi = ctx.schema.flavor === 'one-api';
    return {
      id,
      user_id: int(row.user_id),
      created_at: int(row.created_at),
      type: int(row.type),
      content: text(row.content),
      username: text(row.username).slice(0, 64),
      token_name: text(row.token_name).slice(0, 191),
      model_name: text(row.model_name).slice(0, 191),
      quota: int(row.quota),
      prompt_tokens: int(row.prompt_tokens),
      completion_tokens: int(row.completion_tokens),
      use_time: isOneApi ? Math.round(int(row.elapsed_time) / 1000) : int(row.use_time),
      is_stream: flag(row.is_stream),
      channel_id: int(row.channel_id),
      token_id: int(row.token_id),
      group: text(row.group).slice(0, 64),
      ip: text(row.ip).slice(0, 64),
      other: text(row.other),
    };
  },
};
