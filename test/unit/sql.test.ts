import { describe, expect, it } from 'vitest';
import { sql } from '../../functions/inbox/index.js';
import { SqlTemplateError } from '../../functions/inbox/sql/errors.js';
import { TypedValue } from '../../functions/inbox/sql/sql.js';
import { toPgQuery } from '../../functions/inbox/sql/sql.js';

describe('the sql tag binds every value', () => {
  it('turns interpolations into $n placeholders and keeps the values apart', () => {
    const status = "shipped'; DROP TABLE orders; --";
    expect(toPgQuery(sql`UPDATE orders SET status = ${status} WHERE version = ${3}`)).toEqual({
      text: 'UPDATE orders SET status = $1 WHERE version = $2',
      values: [status, 3],
    });
  });

  it('inlines nested fragments with their values in order', () => {
    const where = sql`order_id = ${'a'} AND version > ${1}`;
    expect(toPgQuery(sql`SELECT ${true} FROM orders WHERE ${where} LIMIT ${5}`)).toEqual({
      text: 'SELECT $1 FROM orders WHERE order_id = $2 AND version > $3 LIMIT $4',
      values: [true, 'a', 1, 5],
    });
  });

  it('returns a frozen statement', () => {
    const statement = sql`SELECT ${1}`;
    expect(Object.isFrozen(statement)).toBe(true);
    expect(Object.isFrozen(statement.values)).toBe(true);
    expect(Object.isFrozen(statement.strings)).toBe(true);
  });
});

describe('the sql tag refuses what it cannot bind safely', () => {
  it('refuses to be called as a plain function', () => {
    expect(() => (sql as unknown as (text: string) => unknown)('SELECT 1')).toThrow(/tagged template/);
  });
  it('refuses undefined', () => {
    expect(() => sql`SELECT ${undefined as unknown as string}`).toThrow(new SqlTemplateError('sql value 1 is undefined: bind null for SQL NULL, or leave the value out.'));
  });
  it('refuses plain objects and points at sql.json', () => {
    expect(() => sql`SELECT ${{ a: 1 } as unknown as string}`).toThrow(/sql\.json/);
  });
  it('refuses NaN and Infinity', () => {
    expect(() => sql`SELECT ${Number.NaN}`).toThrow(/finite/);
    expect(() => sql`SELECT ${Number.POSITIVE_INFINITY}`).toThrow(/finite/);
  });
});

describe('typed helpers carry their Data API type hint', () => {
  it.each([
    ['uuid', () => sql.uuid('0190A8B2-7C3D-7E4F-8A1B-2C3D4E5F6A7B'), 'UUID', '0190a8b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b'],
    ['json', () => sql.json({ a: [1, 'x'] }), 'JSON', '{"a":[1,"x"]}'],
    ['timestamp', () => sql.timestamp(new Date('2026-12-02T18:00:01.250Z')), 'TIMESTAMP', '2026-12-02 18:00:01.250'],
    ['date', () => sql.date('2026-12-02'), 'DATE', '2026-12-02'],
    ['date of a Date', () => sql.date(new Date('2026-12-02T23:59:59Z')), 'DATE', '2026-12-02'],
    ['time', () => sql.time('18:00:01.5'), 'TIME', '18:00:01.5'],
    ['decimal', () => sql.decimal('12345678901234567890.12'), 'DECIMAL', '12345678901234567890.12'],
  ])('%s', (_name, make, hint, value) => {
    expect(make()).toEqual(new TypedValue(hint as TypedValue['typeHint'], value));
  });

  it.each([
    ['uuid', () => sql.uuid('nope')],
    ['timestamp', () => sql.timestamp('yesterday')],
    ['time', () => sql.time('6pm')],
    ['decimal', () => sql.decimal('1,5')],
    ['json', () => sql.json(undefined)],
  ])('%s refuses a malformed value', (_name, make) => {
    expect(make).toThrow(SqlTemplateError);
  });

  it('sends a timestamp to node-postgres with an explicit UTC offset', () => {
    expect(toPgQuery(sql`SELECT ${sql.timestamp(new Date('2026-12-02T18:00:00Z'))}`).values).toEqual(['2026-12-02 18:00:00.000+00']);
  });
});

describe('identifiers are validated and quoted, never bound', () => {
  it('quotes a valid name, with a schema', () => {
    expect(toPgQuery(sql`SELECT * FROM ${sql.identifier('inbox', 'consumed_message')}`).text).toBe('SELECT * FROM "inbox"."consumed_message"');
  });
  it.each(['', 'a b', 'x"; DROP TABLE t; --', '1abc', 'a'.repeat(64)])('refuses %j', (name) => {
    expect(() => sql.identifier(name)).toThrow(SqlTemplateError);
  });
});
