import type { DatabaseKind } from '../../src/config.js';

/**
 * DDL of one-api and new-api databases, written from the GORM models of both projects
 * (model/*.go in songquanpeng/one-api and QuantumNous/new-api) the way GORM's SQLite, MySQL and
 * PostgreSQL drivers lay them out. Three variants: one-api, new-api before its 2025 changes,
 * new-api after them (channel_info, settings, header_override, user created_at/last_login_at…).
 */
export type SourceVariant = 'one-api' | 'new-api' | 'new-api-2025';

type ColumnType = 'pk' | 'int' | 'bigint' | 'bool' | 'float' | 'text' | 'time' | 'json' | { varchar: number } | { char: number };

interface Column {
  name: string;
  type: ColumnType;
  default?: string | number | boolean;
  unique?: boolean;
  notNull?: boolean;
  /** GORM gives indexed strings varchar(191) on MySQL. */
  indexed?: boolean;
}

interface Table {
  name: string;
  columns: Column[];
  primaryKey?: string[];
}

const c = (name: string, type: ColumnType, extra: Omit<Column, 'name' | 'type'> = {}): Column => ({ name, type, ...extra });
const id = c('id', 'pk');
const str = (name: string, extra: Omit<Column, 'name' | 'type'> = {}) => c(name, 'text', extra);
const idx = (name: string, extra: Omit<Column, 'name' | 'type'> = {}) => c(name, 'text', { indexed: true, ...extra });

function tablesOf(variant: SourceVariant): Table[] {
  const isOneApi = variant === 'one-api';
  const is2025 = variant === 'new-api-2025';
  const users: Table = {
    name: 'users',
    columns: [
      id,
      idx('username', { unique: true }),
      str('password', { notNull: true }),
      idx('display_name'),
      c('role', 'int', { default: 1 }),
      c('status', 'int', { default: 1 }),
      idx('email'),
      idx('github_id'),
      ...(isOneApi
        ? [idx('wechat_id'), idx('lark_id'), idx('oidc_id')]
        : [...(is2025 ? [idx('discord_id'), idx('oidc_id')] : []), idx('wechat_id'), idx('telegram_id')]),
      c('access_token', { char: 32 }, { unique: true }),
      c('quota', isOneApi ? 'bigint' : 'int', { default: 0 }),
      c('used_quota', isOneApi ? 'bigint' : 'int', { default: 0 }),
      c('request_count', 'int', { default: 0 }),
      c('group', { varchar: isOneApi ? 32 : 64 }, { default: 'default' }),
      c('aff_code', { varchar: 32 }, { unique: true }),
      ...(isOneApi
        ? []
        : [c('aff_count', 'int', { default: 0 }), c('aff_quota', 'int', { default: 0 }), c('aff_history', 'int', { default: 0 })]),
      c('inviter_id', 'int'),
      ...(isOneApi ? [] : [c('deleted_at', 'time'), idx('linux_do_id')]),
      ...(is2025
        ? [
            str('setting'),
            c('remark', { varchar: 255 }),
            c('stripe_customer', { varchar: 64 }),
            c('created_at', 'bigint'),
            c('last_login_at', 'bigint', { default: 0 }),
            c('auth_version', 'bigint', { default: 1, notNull: true }),
            c('invite_rebate_eligible', 'bool', { default: false }),
          ]
        : []),
    ],
  };
  const tokens: Table = {
    name: 'tokens',
    columns: [
      id,
      c('user_id', 'bigint'),
      c('key', { char: 48 }, { unique: true }),
      c('status', 'bigint', { default: 1 }),
      idx('name'),
      c('created_time', 'bigint'),
      c('accessed_time', 'bigint'),
      c('expired_time', 'bigint', { default: -1 }),
      c('remain_quota', 'bigint', { default: 0 }),
      c('unlimited_quota', 'bool', { default: false }),
      ...(isOneApi
        ? [c('used_quota', 'bigint', { default: 0 }), str('models'), str('subnet', { default: '' })]
        : [
            c('model_limits_enabled', 'bool', { default: false }),
            c('model_limits', { varchar: 1024 }, { default: '' }),
            str('allow_ips', { default: '' }),
            c('used_quota', 'bigint', { default: 0 }),
            str('group', { default: '' }),
            c('deleted_at', 'time'),
          ]),
    ],
  };
  const channels: Table = {
    name: 'channels',
    columns: [
      id,
      c('type', 'bigint', { default: 0 }),
      str('key', { notNull: !isOneApi }),
      ...(isOneApi ? [] : [str('openai_organization'), str('test_model')]),
      c('status', 'bigint', { default: 1 }),
      idx('name'),
      c('weight', 'bigint', { default: 0 }),
      c('created_time', 'bigint'),
      c('test_time', 'bigint'),
      c('response_time', 'bigint'),
      str('base_url', { default: '' }),
      str('other'),
      c('balance', 'float'),
      c('balance_updated_time', 'bigint'),
      str('models'),
      c('group', { varchar: isOneApi ? 32 : 64 }, { default: 'default' }),
      c('used_quota', 'bigint', { default: 0 }),
      is2025 ? str('model_mapping') : c('model_mapping', { varchar: 1024 }, { default: '' }),
      ...(isOneApi
        ? [c('priority', 'bigint', { default: 0 }), str('config'), str('system_prompt')]
        : [
            c('status_code_mapping', { varchar: 1024 }, { default: '' }),
            c('priority', 'bigint', { default: 0 }),
            c('auto_ban', 'bigint', { default: 1 }),
            str('other_info'),
            idx('tag'),
            str('setting'),
          ]),
      ...(is2025
        ? [
            c('need_reconcile', 'bigint', { default: 0 }),
            str('param_override'),
            str('header_override'),
            c('remark', { varchar: 255 }),
            c('channel_info', 'json'),
            str('settings'),
          ]
        : []),
    ],
  };
  const abilities: Table = {
    name: 'abilities',
    primaryKey: ['group', 'model', 'channel_id'],
    columns: [
      c('group', { varchar: isOneApi ? 32 : 64 }),
      c('model', { varchar: isOneApi ? 191 : 255 }),
      c('channel_id', 'bigint'),
      c('enabled', 'bool'),
      c('priority', 'bigint', { default: 0 }),
      ...(isOneApi ? [] : [c('weight', 'bigint', { default: 0 }), idx('tag')]),
    ],
  };
  const options: Table = { name: 'options', primaryKey: ['key'], columns: [c('key', { varchar: 191 }), str('value')] };
  const redemptions: Table = {
    name: 'redemptions',
    columns: [
      id,
      c('user_id', 'bigint'),
      c('key', { char: 32 }, { unique: true }),
      c('status', 'bigint', { default: 1 }),
      idx('name'),
      c('quota', 'bigint', { default: 100 }),
      c('created_time', 'bigint'),
      c('redeemed_time', 'bigint'),
      ...(isOneApi ? [] : [c('used_user_id', 'bigint'), c('deleted_at', 'time')]),
      ...(is2025 ? [c('expired_time', 'bigint')] : []),
    ],
  };
  const logs: Table = {
    name: 'logs',
    columns: [
      id,
      c('user_id', 'bigint'),
      c('created_at', 'bigint'),
      c('type', 'bigint'),
      str('content'),
      idx('username', { default: '' }),
      idx('token_name', { default: '' }),
      idx('model_name', { default: '' }),
      c('quota', 'bigint', { default: 0 }),
      c('prompt_tokens', 'bigint', { default: 0 }),
      c('completion_tokens', 'bigint', { default: 0 }),
      ...(isOneApi
        ? [
            c('channel_id', 'bigint'),
            str('request_id', { default: '' }),
            c('elapsed_time', 'bigint', { default: 0 }),
            c('is_stream', 'bool', { default: false }),
            c('system_prompt_reset', 'bool', { default: false }),
          ]
        : [
            c('use_time', 'bigint', { default: 0 }),
            c('is_stream', 'bool', { default: false }),
            c('channel_id', 'bigint'),
            c('token_id', 'bigint', { default: 0 }),
            idx('group'),
            ...(is2025 ? [idx('ip', { default: '' })] : []),
            str('other'),
          ]),
    ],
  };
  const tables = [users, tokens, channels, abilities, options, redemptions, logs];
  if (isOneApi) return tables;
  tables.push(
    {
      name: 'top_ups',
      columns: [
        id,
        c('user_id', 'bigint'),
        c('amount', 'bigint'),
        c('money', 'float'),
        str('trade_no'),
        ...(is2025 ? [str('payment_method')] : []),
        c('create_time', 'bigint'),
        ...(is2025 ? [c('complete_time', 'bigint')] : []),
        str('status'),
      ],
    },
    {
      name: 'tasks',
      columns: [
        id,
        c('created_at', 'bigint'),
        c('updated_at', 'bigint'),
        c('task_id', { varchar: 50 }),
        c('platform', { varchar: 30 }),
        c('user_id', 'bigint'),
        c('channel_id', 'bigint'),
        c('quota', 'bigint'),
        c('action', { varchar: 40 }),
        c('status', { varchar: 20 }),
        str('fail_reason'),
        c('submit_time', 'bigint'),
        c('start_time', 'bigint'),
        c('finish_time', 'bigint'),
        c('progress', { varchar: 20 }),
        c('properties', 'json'),
        c('data', 'json'),
      ],
    },
    {
      name: 'midjourneys',
      columns: [
        id,
        c('code', 'bigint'),
        c('user_id', 'bigint'),
        c('action', { varchar: 40 }),
        idx('mj_id'),
        str('prompt'),
        str('prompt_en'),
        str('description'),
        str('state'),
        c('submit_time', 'bigint'),
        c('start_time', 'bigint'),
        c('finish_time', 'bigint'),
        str('image_url'),
        c('status', { varchar: 20 }),
        c('progress', { varchar: 30 }),
        str('fail_reason'),
        c('channel_id', 'bigint'),
        c('quota', 'bigint'),
        str('buttons'),
        str('properties'),
      ],
    },
  );
  if (is2025)
    tables.push({
      name: 'setups',
      columns: [id, c('version', { varchar: 50 }, { notNull: true }), c('initialized_at', 'bigint', { notNull: true })],
    });
  return tables;
}

function typeSql(kind: DatabaseKind, column: Column): string {
  const t = column.type;
  if (typeof t === 'object') return 'varchar' in t ? `varchar(${t.varchar})` : `char(${t.char})`;
  const byKind: Record<Exclude<ColumnType, object>, Record<DatabaseKind, string>> = {
    pk: { sqlite: 'integer PRIMARY KEY AUTOINCREMENT', mysql: 'bigint AUTO_INCREMENT PRIMARY KEY', postgres: 'bigserial PRIMARY KEY' },
    int: { sqlite: 'integer', mysql: 'int', postgres: 'integer' },
    bigint: { sqlite: 'integer', mysql: 'bigint', postgres: 'bigint' },
    bool: { sqlite: 'numeric', mysql: 'boolean', postgres: 'boolean' },
    float: { sqlite: 'real', mysql: 'double', postgres: 'decimal' },
    text: { sqlite: 'text', mysql: column.indexed || column.unique ? 'varchar(191)' : 'longtext', postgres: 'text' },
    time: { sqlite: 'datetime', mysql: 'datetime(3) NULL', postgres: 'timestamptz' },
    json: { sqlite: 'json', mysql: 'json', postgres: 'json' },
  };
  return byKind[t][kind];
}

const quote = (kind: DatabaseKind, name: string) => (kind === 'mysql' ? `\`${name}\`` : `"${name}"`);

function defaultSql(kind: DatabaseKind, value: string | number | boolean): string {
  if (typeof value === 'boolean') return kind === 'postgres' ? String(value) : value ? '1' : '0';
  if (typeof value === 'number') return String(value);
  return `'${value.replace(/'/g, "''")}'`;
}

/** CREATE TABLE and CREATE INDEX statements of a variant for one dialect. */
export function sourceDdl(variant: SourceVariant, kind: DatabaseKind): string[] {
  const statements: string[] = [];
  for (const table of tablesOf(variant)) {
    const columns = table.columns.map((column) => {
      let line = `${quote(kind, column.name)} ${typeSql(kind, column)}`;
      if (column.notNull) line += ' NOT NULL';
      // MySQL refuses literal defaults on TEXT columns; GORM leaves them off there as well.
      const isMysqlText = kind === 'mysql' && column.type === 'text' && !column.indexed && !column.unique;
      if (column.default !== undefined && !isMysqlText) line += ` DEFAULT ${defaultSql(kind, column.default)}`;
      return line;
    });
    if (table.primaryKey) columns.push(`PRIMARY KEY (${table.primaryKey.map((name) => quote(kind, name)).join(', ')})`);
    statements.push(`CREATE TABLE ${quote(kind, table.name)} (${columns.join(', ')})`);
    for (const column of table.columns) {
      if (column.unique)
        statements.push(
          `CREATE UNIQUE INDEX ${quote(kind, `idx_${table.name}_${column.name}`)} ON ${quote(kind, table.name)} (${quote(kind, column.name)})`,
        );
      else if (column.indexed)
        statements.push(
          `CREATE INDEX ${quote(kind, `idx_${table.name}_${column.name}`)} ON ${quote(kind, table.name)} (${quote(kind, column.name)})`,
        );
    }
  }
  return statements;
}

/** Column names of a variant's table, so seed rows can carry every field and keep what exists. */
export function columnsOf(variant: SourceVariant, table: string): Set<string> {
  return new Set(
    tablesOf(variant)
      .find((t) => t.name === table)
      ?.columns.map((column) => column.name) ?? [],
  );
}
