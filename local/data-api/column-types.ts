import type pg from 'pg';

/** What a result column's type is, as the service reports and formats it. */
export interface ColumnType {
  /** pg_type.typname, for example `int4`, `timestamptz`, `_text`. */
  readonly typeName: string;
  /** For an array, the element's typname; otherwise undefined. */
  readonly elementTypeName: string | undefined;
}

const UNKNOWN: ColumnType = { typeName: 'unknown', elementTypeName: undefined };

/**
 * Looks type oids up in pg_type, once per database: result fields carry only the oid, and the
 * service answers with type names (columnMetadata) and formats values by type.
 *
 * @example
 * ```ts
 * const types = new ColumnTypes();
 * const [column] = await types.of('app', client, [23]); // { typeName: 'int4', elementTypeName: undefined }
 * ```
 */
export class ColumnTypes {
  private readonly known = new Map<string, Map<number, ColumnType>>();

  public async of(database: string, client: pg.ClientBase, oids: readonly number[]): Promise<ColumnType[]> {
    let types = this.known.get(database);
    if (types === undefined) {
      types = new Map();
      this.known.set(database, types);
    }
    const missing = [...new Set(oids)].filter((oid) => !types.has(oid));
    if (missing.length > 0) {
      const { rows } = await client.query<{ oid: number; typname: string; elem: string | null }>({
        text: 'SELECT t.oid::int AS oid, t.typname, e.typname AS elem FROM pg_type t LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = \'A\' WHERE t.oid = ANY($1::oid[])',
        values: [missing],
      });
      for (const row of rows) types.set(Number(row.oid), { typeName: row.typname, elementTypeName: row.elem ?? undefined });
    }
    return oids.map((oid) => types.get(oid) ?? UNKNOWN);
  }
}
