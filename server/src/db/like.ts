import { sql, type RawBuilder, type SqlBool } from 'kysely';

/** `text` matched literally in a LIKE pattern: '!' escapes %, _ and itself (see `like`). */
const literal = (text: string) => text.replace(/[!%_]/g, (char) => `!${char}`);

/**
 * `column LIKE pattern ESCAPE '!'` for a value a caller sent, matched literally: as a prefix
 * (`starts`) or anywhere (`contains`). The same on SQLite, PostgreSQL and MySQL.
 */
export function like(column: string, text: string, match: 'starts' | 'contains'): RawBuilder<SqlBool> {
  const pattern = match === 'starts' ? `${literal(text)}%` : `%${literal(text)}%`;
  return sql<SqlBool>`${sql.ref(column)} LIKE ${pattern} ESCAPE '!'`;
}
