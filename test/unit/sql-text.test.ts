import { describe, expect, it } from 'vitest';
import { codeSpans, splitStatements } from '../../functions/inbox/internal.js';

/** The code of a text as the spans cut it, joined with `|` so a test reads what the lexer sees. */
function code(text: string): string {
  return codeSpans(text).map((span) => text.slice(span.start, span.end)).join('|');
}

describe('codeSpans leaves out what is not code', () => {
  it('returns the whole text when there is nothing to leave out', () => {
    expect(codeSpans('SELECT 1')).toEqual([{ start: 0, end: 8 }]);
  });

  it('leaves out string literals, with doubled quotes kept inside', () => {
    expect(code("SELECT 'it''s; :x', 2")).toBe('SELECT |, 2');
  });

  it("reads backslash escapes only in E'' strings", () => {
    expect(code("SELECT E'a\\'; b', 1")).toBe('SELECT E|, 1');
    // In a standard string a backslash is a plain character: the literal ends at the second quote.
    expect(code("SELECT 'a\\', 1")).toBe('SELECT |, 1');
  });

  it("does not take the E of a longer word for an escape prefix", () => {
    expect(code("SELECT TYPE'a\\', ';'")).toBe('SELECT TYPE|, ');
  });

  it('leaves out quoted identifiers', () => {
    expect(code('SELECT "odd;name", "say ""hi"""  FROM t')).toBe('SELECT |, |  FROM t');
  });

  it('leaves out line comments up to the end of the line', () => {
    expect(code('SELECT 1 -- a; comment\n, 2')).toBe('SELECT 1 |\n, 2');
  });

  it('leaves out nested block comments', () => {
    expect(code('SELECT /* a /* b; */ still comment; */ 1')).toBe('SELECT | 1');
  });

  it('leaves out dollar-quoted bodies, tagged or not, up to the same tag', () => {
    expect(code('SELECT $$a;b$$, $fn$ x $$ y; $fn$, 3')).toBe('SELECT |, |, 3');
  });

  it('does not read positional parameters or identifiers with $ as dollar quotes', () => {
    expect(code('SELECT $1, a$b$ FROM t')).toBe('SELECT $1, a$b$ FROM t');
  });

  it('leaves :: casts in the code', () => {
    expect(code("SELECT '1'::int, now()::text")).toBe('SELECT |::int, now()::text');
  });

  it('runs an unterminated literal or comment to the end of the text', () => {
    expect(code("SELECT 'open")).toBe('SELECT ');
    expect(code('SELECT 1 /* open')).toBe('SELECT 1 ');
  });
});

describe('splitStatements cuts a script at the semicolons that are code', () => {
  it('splits statements and trims them', () => {
    expect(splitStatements('CREATE TABLE a (x int);\n\n  INSERT INTO a VALUES (1);  ')).toEqual([
      'CREATE TABLE a (x int)',
      'INSERT INTO a VALUES (1)',
    ]);
  });

  it('keeps a semicolon inside a string, an E string, a quoted identifier or a comment', () => {
    const script = [
      "INSERT INTO t VALUES ('a;b', E'c\\';d');",
      'CREATE TABLE "x;y" (a int); -- a note; with a semicolon',
      'SELECT /* one; /* two; */ three; */ 1;',
    ].join('\n');
    expect(splitStatements(script)).toEqual([
      "INSERT INTO t VALUES ('a;b', E'c\\';d')",
      'CREATE TABLE "x;y" (a int)',
      '-- a note; with a semicolon\nSELECT /* one; /* two; */ three; */ 1',
    ]);
  });

  it('does not end a statement at a semicolon inside a line comment', () => {
    expect(splitStatements('SELECT 1 -- not the end;\n, 2; SELECT 3')).toEqual(['SELECT 1 -- not the end;\n, 2', 'SELECT 3']);
  });

  it('keeps a dollar-quoted function body whole', () => {
    const body = "CREATE FUNCTION f() RETURNS text LANGUAGE plpgsql AS $body$\nBEGIN\n  PERFORM 1;\n  RETURN 'x;y';\nEND;\n$body$";
    expect(splitStatements(`${body};\nSELECT f();`)).toEqual([body, 'SELECT f()']);
  });

  it('drops empty statements and those that hold only comments', () => {
    expect(splitStatements(';;\n-- just a note;\n/* and; another */;\nSELECT 1;;')).toEqual(['SELECT 1']);
  });

  it('keeps a last statement that has no semicolon', () => {
    expect(splitStatements('SELECT 1; SELECT 2')).toEqual(['SELECT 1', 'SELECT 2']);
  });

  it('leaves :: casts untouched', () => {
    expect(splitStatements("SELECT '5'::int; SELECT now()::date")).toEqual(["SELECT '5'::int", 'SELECT now()::date']);
  });
});
