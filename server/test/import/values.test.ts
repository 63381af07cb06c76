import { describe, expect, it } from 'vitest';
import type { ImportContext } from '../../src/import/context.js';
import type { SourceSchema } from '../../src/import/detect-schema.js';
import { IdPlan } from '../../src/import/id-plan.js';
import { openSource } from '../../src/import/source.js';
import { tokensMapper } from '../../src/import/tables/tokens.js';
import { mapOneApiType } from '../../src/import/tables/one-api-types.js';
import { usersMapper } from '../../src/import/tables/users.js';
import { flag, inexactInteger, unixSeconds } from '../../src/import/values.js';

const expected = Date.UTC(2025, 2, 1, 2, 0, 0) / 1000;

/** What a mapper reads of the context: the schema, and the users imported so far. */
function contextOf(flavor: SourceSchema['flavor'], userIds: number[] = []): ImportContext {
  const schema: SourceSchema = { flavor, tables: new Map(), has: () => false };
  const ids = new IdPlan();
  for (const id of userIds) ids.land('users', id, id, 'check');
  return { schema, ids } as unknown as ImportContext;
}

describe('reading values the way each driver returns them', () => {
  it('names what --from cannot be', () => {
    expect(() => openSource('host=db user=x dbname=newapi sslmode=disable')).toThrow('give it as postgres://');
    expect(() => openSource('/nonexistent/one-api.db?_busy_timeout=5000')).toThrow('no SQLite database at /nonexistent/one-api.db');
    expect(() => openSource('  ')).toThrow('--from needs a database');
  });

  it('turns every GORM time spelling into unix seconds', () => {
    expect(unixSeconds('2025-03-01 10:00:00.123456789+08:00')).toBe(expected);
    expect(unixSeconds('2025-03-01 02:00:00')).toBe(expected);
    expect(unixSeconds('2025-03-01T02:00:00Z')).toBe(expected);
    expect(unixSeconds(new Date(expected * 1000))).toBe(expected);
    expect(unixSeconds(expected)).toBe(expected);
    expect(unixSeconds(null)).toBeNull();
    expect(unixSeconds('')).toBeNull();
    expect(unixSeconds('not a time')).toBeNull();
  });

  it('reads booleans of SQLite, MySQL and PostgreSQL', () => {
    expect([flag(true), flag(1), flag('1'), flag('t'), flag(false), flag(0), flag(null)]).toEqual([1, 1, 1, 1, 0, 0, 0]);
  });

  it('rejects quotas JavaScript cannot hold exactly instead of rounding them', () => {
    expect(inexactInteger({ quota: 2 ** 53 - 1 }, ['quota'])).toBeNull();
    expect(inexactInteger({ quota: -5 }, ['quota'])).toBeNull();
    expect(inexactInteger({ quota: '18014398509481985' }, ['quota'])).toContain('quota is beyond');
    expect(inexactInteger({ quota: 2n ** 60n }, ['quota'])).toContain('quota is beyond');
    const user = { id: 4, username: 'whale', password: 'x', quota: '18014398509481985' };
    expect(usersMapper.map(user, contextOf('new-api'))).toBe('its quota is beyond what ModelGate stores exactly (±2^53)');
  });

  it('keeps token keys byte for byte and needs the owner imported', () => {
    const key = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijkl';
    const row = { id: 1, user_id: 2, key, remain_quota: 5, expired_time: -1 };
    expect(tokensMapper.map(row, contextOf('new-api', [2]))).toMatchObject({ key, user_id: 2, remain_quota: 5 });
    expect(tokensMapper.map(row, contextOf('new-api', []))).toBe('its user 2 is not imported');
    expect(tokensMapper.map({ ...row, key: `${key}x` }, contextOf('new-api', [2]))).toBe('its key is longer than 48 characters');
    expect(tokensMapper.rowNotes!({ ...row, key: 'sk-abc' }, contextOf('new-api', [2]))).toHaveLength(1);
    expect(tokensMapper.rowNotes!(row, contextOf('new-api', [2]))).toEqual([]);
  });

  it("maps one-api channel types to ModelGate's numbers", () => {
    expect(mapOneApiType(36)).toEqual({ type: 43 });
    expect(mapOneApiType(29)).toEqual({ type: 1, baseUrl: 'https://api.groq.com/openai' });
    expect(mapOneApiType(38)).toContain('DeepL');
    expect(mapOneApiType(999)).toBe('one-api channel type 999 is unknown');
  });
});
