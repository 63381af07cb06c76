import bcrypt from 'bcryptjs';
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../../src/config.js';
import { openStorage } from '../../src/db/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-storage.js';
import { columnsOf, sourceDdl, type SourceVariant } from './source-schemas.js';

export const alicePassword = 'alice-old-pass';
export const aliceKey = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijkl';
export const limitedKey = 'ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210zyxwvutsrqpo';
export const orphanKey = 'OrphanOrphanOrphanOrphanOrphanOrphanOrphanOrphan';
export const deletedKey = 'DeletedDeletedDeletedDeletedDeletedDeletedDelete';
export const upstreamKey = 'upstream-key-1';
export const vertexAccounts = [
  { type: 'service_account', project_id: 'p1', private_key: '-----BEGIN PRIVATE KEY-----\nAAA\n-----END PRIVATE KEY-----\n' },
  { type: 'service_account', project_id: 'p2', private_key: '-----BEGIN PRIVATE KEY-----\nBBB\n-----END PRIVATE KEY-----\n' },
];
/** 2025-03-01 02:00:00 UTC, the soft-delete time of the fixture's deleted rows. */
export const deletedAtSeconds = Date.UTC(2025, 2, 1, 2, 0, 0) / 1000;

export interface SourceFixture {
  kind: DatabaseKind;
  variant: SourceVariant;
  /** What `--from` is given. */
  from: string;
  drop(): Promise<void>;
}

const bool = (kind: DatabaseKind, value: boolean) => (kind === 'postgres' ? value : value ? 1 : 0);

/** How GORM wrote the deletion time: SQLite text with nanoseconds and zone, else a datetime. */
const deletedAt = (kind: DatabaseKind) =>
  kind === 'sqlite' ? '2025-03-01 10:00:00.123456789+08:00' : kind === 'postgres' ? '2025-03-01 02:00:00+00' : '2025-03-01 02:00:00';

/** The Go DSN form of a mysql:// URL, as one-api and new-api read SQL_DSN. */
export function goMysqlDsn(dsn: string): string {
  const url = new URL(dsn);
  const auth = url.password ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : decodeURIComponent(url.username);
  return `${auth}@tcp(${url.host})${url.pathname}?charset=utf8mb4&parseTime=True&loc=Local`;
}

function seedRows(kind: DatabaseKind, variant: SourceVariant, upstreamUrl: string): Record<string, Array<Record<string, unknown>>> {
  const isOneApi = variant === 'one-api';
  const hash = (password: string) => bcrypt.hashSync(password, 4).replace(/^\$2b\$/, '$2a$');
  return {
    users: [
      {
        id: 1,
        username: 'root',
        password: hash('root-old-pass'),
        role: 100,
        status: 1,
        aff_code: 'ROOT',
        display_name: 'Root User',
        group: 'default',
      },
      {
        id: 2,
        username: 'alice',
        password: hash(alicePassword),
        display_name: 'Alice',
        role: 1,
        status: 1,
        email: 'alice@example.com',
        github_id: 'gh-alice',
        wechat_id: '',
        telegram_id: 'tg-alice',
        linux_do_id: 'ld-alice',
        oidc_id: 'oidc-alice',
        lark_id: 'lark-alice',
        discord_id: 'discord-alice',
        access_token: 'alicealicealicealicealicealice12',
        quota: 5_000_000,
        used_quota: 1234,
        request_count: 7,
        group: 'default',
        aff_code: 'AF01',
        aff_count: 2,
        aff_quota: 300,
        aff_history: 600,
        inviter_id: 1,
        setting: '{"notify_type":"email"}',
        remark: 'vip customer',
        created_at: 1_700_000_000,
        stripe_customer: 'cus_1',
        auth_version: 1,
      },
      isOneApi
        ? { id: 3, username: 'bob', password: hash('bob-old-pass'), status: 2, aff_code: 'BOB1', group: 'default' }
        : {
            id: 3,
            username: 'bob',
            password: hash('bob-old-pass'),
            status: 1,
            aff_code: 'BOB1',
            group: 'default',
            deleted_at: deletedAt(kind),
          },
    ],
    tokens: [
      {
        id: 10,
        user_id: 2,
        key: aliceKey,
        status: 1,
        name: 'main',
        created_time: 1_700_000_100,
        accessed_time: 0,
        expired_time: -1,
        remain_quota: 1_000_000,
        unlimited_quota: bool(kind, false),
        used_quota: 50,
        model_limits_enabled: bool(kind, false),
        model_limits: '',
        allow_ips: '',
        group: '',
        models: '',
        subnet: '',
      },
      {
        id: 11,
        user_id: 2,
        key: limitedKey,
        status: 1,
        name: 'limited',
        created_time: 1_700_000_200,
        expired_time: -1,
        remain_quota: 0,
        unlimited_quota: bool(kind, true),
        used_quota: 0,
        model_limits_enabled: bool(kind, true),
        model_limits: 'gpt-4o',
        allow_ips: '10.0.0.1',
        models: 'gpt-4o',
        subnet: '10.0.0.1',
        group: '',
      },
      {
        id: 12,
        user_id: 99,
        key: orphanKey,
        status: 1,
        name: 'orphan',
        expired_time: -1,
        remain_quota: 10,
        unlimited_quota: bool(kind, false),
      },
      ...(isOneApi
        ? []
        : [
            {
              id: 13,
              user_id: 2,
              key: deletedKey,
              status: 1,
              name: 'gone',
              expired_time: -1,
              remain_quota: 10,
              unlimited_quota: bool(kind, false),
              deleted_at: deletedAt(kind),
            },
          ]),
    ],
    channels: [
      {
        id: 5,
        type: 1,
        key: upstreamKey,
        status: 1,
        name: 'upstream',
        weight: 5,
        created_time: 1_700_000_000,
        base_url: upstreamUrl,
        models: 'gpt-4o-mini,gpt-4o',
        group: 'default,vip',
        used_quota: 777,
        model_mapping: '',
        priority: 10,
        balance: 12.5,
        balance_updated_time: 1_700_000_500,
        tag: 'main',
        auto_ban: 1,
        other: '',
        other_info: '',
        setting: '{"force_format":false}',
        param_override: '',
        openai_organization: '',
        test_model: 'gpt-4o-mini',
        config: '',
        header_override: '{"X-Test":"1"}',
        channel_info: variant === 'new-api-2025' ? '{"is_multi_key":false,"multi_key_size":0}' : undefined,
        settings: '{}',
      },
      isOneApi
        ? {
            id: 6,
            type: 3,
            key: 'azure-key',
            status: 3,
            name: 'azure',
            models: 'gpt-4o',
            group: 'default',
            base_url: 'https://example.openai.azure.com',
            other: '',
            config: '{"api_version":"2024-02-01"}',
            priority: 0,
          }
        : {
            id: 6,
            type: 3,
            key: 'azure-key',
            status: 3,
            name: 'azure',
            models: 'gpt-4o',
            group: 'default',
            base_url: 'https://example.openai.azure.com',
            other: '2024-02-01',
            other_info: '{"status_reason":"quota exceeded","status_time":1700000900}',
            priority: 0,
            auto_ban: 1,
          },
      isOneApi
        ? { id: 7, type: 38, key: 'deepl-key', status: 1, name: 'deepl', models: 'deepl-en', group: 'default', config: '' }
        : { id: 7, type: 1, key: '', status: 2, name: 'keyless', models: 'gpt-4o', group: 'default', other_info: '' },
      ...(variant === 'new-api-2025'
        ? [
            {
              id: 8,
              type: 41,
              key: JSON.stringify(vertexAccounts, null, 2),
              status: 1,
              name: 'vertex pool',
              models: 'gemini-2.0-flash',
              group: 'default',
              other: 'us-central1',
              channel_info: '{"is_multi_key":true,"multi_key_size":2,"multi_key_status_list":{"1":2},"multi_key_mode":"polling"}',
            },
          ]
        : []),
    ],
    abilities: [
      { group: 'default', model: 'gpt-4o-mini', channel_id: 5, enabled: bool(kind, true), priority: 10, weight: 5, tag: 'main' },
      { group: 'default', model: 'gpt-4o', channel_id: 5, enabled: bool(kind, true), priority: 10, weight: 5, tag: 'main' },
    ],
    options: [
      { key: 'SystemName', value: 'Old Gateway' },
      { key: 'ModelRatio', value: '{"gpt-4o-mini":0.5,"gpt-4o":2.5}' },
      { key: 'QuotaForNewUser', value: 'plenty' },
      { key: 'CheckinEnabled', value: 'true' },
      { key: 'LegacyFlag', value: '1' },
      // new-api's SSRF lists (fetch_setting): an operator's allow list must not be lost in the move.
      ...(variant === 'new-api-2025'
        ? [
            { key: 'fetch_setting.domain_filter_mode', value: 'true' },
            { key: 'fetch_setting.domain_list', value: '["*.hooks.example.com"]' },
          ]
        : []),
    ],
    redemptions: [
      {
        id: 20,
        user_id: 1,
        key: 'RedeemRedeemRedeemRedeemRedeem01',
        status: 1,
        name: 'gift',
        quota: 1000,
        created_time: 1_700_000_000,
        redeemed_time: 0,
      },
      {
        id: 21,
        user_id: 1,
        key: 'RedeemRedeemRedeemRedeemRedeem02',
        status: 3,
        name: 'gift',
        quota: 1000,
        created_time: 1_700_000_000,
        redeemed_time: 1_700_000_300,
        used_user_id: 2,
      },
    ],
    top_ups: [
      {
        id: 30,
        user_id: 2,
        amount: 10,
        money: 7.3,
        trade_no: 'T-001',
        payment_method: 'alipay',
        create_time: 1_700_000_000,
        complete_time: 1_700_000_010,
        status: 'success',
      },
      { id: 31, user_id: 2, amount: 5, money: 3.65, trade_no: '', create_time: 1_700_000_000, status: 'pending' },
    ],
    logs: [
      {
        id: 40,
        user_id: 2,
        created_at: 1_700_000_400,
        type: 2,
        content: 'old call',
        username: 'alice',
        token_name: 'main',
        model_name: 'gpt-4o-mini',
        quota: 1234,
        prompt_tokens: 10,
        completion_tokens: 20,
        use_time: 2,
        elapsed_time: 2000,
        is_stream: bool(kind, false),
        channel_id: 5,
        token_id: 10,
        group: 'default',
        other: '{}',
        request_id: 'req-1',
      },
      {
        id: 41,
        user_id: 2,
        created_at: 1_700_000_500,
        type: 1,
        content: 'top up',
        username: 'alice',
        quota: 1000,
        is_stream: bool(kind, false),
        channel_id: 0,
      },
    ],
    tasks: [
      {
        id: 50,
        created_at: 1_700_000_600,
        updated_at: 1_700_000_700,
        task_id: 'task-1',
        platform: 'suno',
        user_id: 2,
        channel_id: 5,
        quota: 10,
        action: 'MUSIC',
        status: 'SUCCESS',
        fail_reason: '',
        submit_time: 1_700_000_600,
        start_time: 1_700_000_610,
        finish_time: 1_700_000_690,
        progress: '100%',
        properties: '{"input":"song"}',
        data: '{"ok":true}',
      },
    ],
    midjourneys: [
      {
        id: 60,
        code: 1,
        user_id: 2,
        action: 'IMAGINE',
        mj_id: 'mj-1',
        prompt: 'a cat',
        prompt_en: 'a cat',
        description: '',
        state: '',
        submit_time: 1_700_000_800,
        start_time: 0,
        finish_time: 0,
        image_url: '',
        status: 'SUCCESS',
        progress: '100%',
        fail_reason: '',
        channel_id: 5,
        quota: 20,
        buttons: '[]',
        properties: '{}',
      },
    ],
    setups: [{ id: 1, version: 'v0.9.0', initialized_at: 1_690_000_000 }],
  };
}

/**
 * A fresh database on the local server (or a SQLite file) laid out as `variant` and filled with
 * the fixture rows; `upstreamUrl` is the base URL of the channel the relay test calls.
 */
export async function buildSource(
  kind: DatabaseKind,
  variant: SourceVariant,
  upstreamUrl: string,
  options: { goDsn?: boolean } = {},
): Promise<SourceFixture> {
  const database: TestDatabase = await createTestDatabase(kind);
  const storage = openStorage({ kind, dsn: database.dsn, sqlitePath: database.sqlitePath, poolSize: 1, onIdleError: () => undefined });
  const db = storage.db as unknown as Kysely<any>;
  try {
    for (const statement of sourceDdl(variant, kind)) await sql.raw(statement).execute(db);
    for (const [table, rows] of Object.entries(seedRows(kind, variant, upstreamUrl))) {
      const columns = columnsOf(variant, table);
      if (columns.size === 0) continue;
      for (const row of rows) {
        const values = Object.fromEntries(Object.entries(row).filter(([column, value]) => columns.has(column) && value !== undefined));
        await db.insertInto(table).values(values).execute();
      }
    }
  } finally {
    await storage.close();
  }
  const from = kind === 'sqlite' ? database.sqlitePath : kind === 'mysql' && options.goDsn ? goMysqlDsn(database.dsn) : database.dsn;
  return { kind, variant, from, drop: () => database.drop() };
}
