/** A stretch of SQL text that is code: outside quotes, quoted identifiers, dollar quotes and comments. */
export interface CodeSpan {
  readonly start: number;
  readonly end: number;
}

const DOLLAR_TAG = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/;

/** Index just past the quoted literal that opens at `start` with `quote`; doubled quotes stay inside. */
function skipQuoted(text: string, start: number, quote: string, backslashEscapes: boolean): number {
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i];
    if (backslashEscapes && ch === '\\') {
      i += 2;
    } else if (ch === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i += 1;
    }
  }
  return text.length;
}

function skipBlockComment(text: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    if (text.startsWith('/*', i)) { depth += 1; i += 2; }
    else if (text.startsWith('*/', i)) { depth -= 1; i += 2; if (depth === 0) return i; }
    else i += 1;
  }
  return text.length;
}

/**
 * Where the code of a SQL text is, as PostgreSQL's lexer sees it: quoted strings (with E'' escapes),
 * quoted identifiers, dollar-quoted bodies, line comments and nested block comments are left out.
 *
 * @example
 * ```ts
 * codeSpans("SELECT ':x' -- :y\n, :z") // spans cover `SELECT `, ` ` and `\n, :z`
 * ```
 */
export function codeSpans(text: string): CodeSpan[] {
  const spans: CodeSpan[] = [];
  let spanStart = 0;
  let i = 0;
  const close = (end: number, resume: number) => {
    if (end > spanStart) spans.push({ start: spanStart, end });
    spanStart = resume;
    i = resume;
  };
  while (i < text.length) {
    const ch = text[i];
    const prev = i > 0 ? text[i - 1] : '';
    if (ch === "'") {
      const escapes = (prev === 'E' || prev === 'e') && !/[A-Za-z0-9_]/.test(text[i - 2] ?? '');
      close(i, skipQuoted(text, i, "'", escapes));
    } else if (ch === '"') {
      close(i, skipQuoted(text, i, '"', false));
    } else if (ch === '-' && text[i + 1] === '-') {
      const newline = text.indexOf('\n', i);
      close(i, newline === -1 ? text.length : newline);
    } else if (ch === '/' && text[i + 1] === '*') {
      close(i, skipBlockComment(text, i));
    } else if (ch === '$' && !/[A-Za-z0-9_]/.test(prev ?? '')) {
      const tag = DOLLAR_TAG.exec(text.slice(i));
      if (tag) {
        const end = text.indexOf(tag[0], i + tag[0].length);
        close(i, end === -1 ? text.length : end + tag[0].length);
      } else {
        i += 1;
      }
    } else {
      i += 1;
    }
  }
  close(text.length, text.length);
  return spans;
}

/**
 * Splits a SQL script into its statements at the semicolons that are code, dropping the empty ones
 * and those that hold only comments.
 *
 * @example
 * ```ts
 * splitStatements("CREATE TABLE t (a text DEFAULT ';');\nCREATE INDEX ON t (a);") // two statements
 * ```
 */
export function splitStatements(text: string): string[] {
  const statements: string[] = [];
  let from = 0;
  for (const span of codeSpans(text)) {
    for (let i = span.start; i < span.end; i += 1) {
      if (text[i] === ';') {
        statements.push(text.slice(from, i));
        from = i + 1;
      }
    }
  }
  statements.push(text.slice(from));
  return statements
    .map((statement) => statement.trim())
    .filter((statement) => codeSpans(statement).some((span) => statement.slice(span.start, span.end).trim() !== ''));
}
