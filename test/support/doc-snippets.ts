import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { documentationFiles, ROOT } from './documentation.js';
import { entryPoints } from './public-names.js';

// `<!-- snippet: path/in/the/project -->` on its own line, then a fenced block.
const SNIPPET = /^<!-- snippet: (\S+) -->\n```[a-z]*\n([\s\S]*?)\n```$/gm;

/**
 * The code blocks of the documentation (README.md and docs/*.md) marked `<!-- snippet: <path> -->`,
 * by the path of the file each one is in a project of the reader's, so a test can build that
 * project from the pages themselves, whichever page holds each file.
 *
 * @example
 * ```ts
 * for (const [file, text] of projectSnippets()) await writeFile(path.join(project, file), text);
 * ```
 */
export function projectSnippets(files: readonly string[] = documentationFiles()): Map<string, string> {
  const snippets = new Map<string, string>();
  const pageOf = new Map<string, string>();
  for (const page of files) {
    for (const [, file, code] of readFileSync(path.join(ROOT, page), 'utf8').matchAll(SNIPPET)) {
      if (pageOf.has(file!)) throw new Error(`${pageOf.get(file!)} and ${page} both mark a snippet as ${file}: give each file one.`);
      pageOf.set(file!, page);
      snippets.set(file!, `${code}\n`);
    }
  }
  return snippets;
}

/** One ```ts block of a Markdown file, with the context a fragment is written in. */
export interface Snippet {
  /** The line of the block's first line of code, counted from 1. */
  readonly line: number;
  /** The names a fragment takes from the text around it, given by `<!-- snippet context: ... -->` on the line before the fence. */
  readonly context: string;
  readonly code: string;
}

const CONTEXT = /^<!-- snippet context: (.*) -->$/;
const PROJECT_FILE = /^<!-- snippet: (\S+) -->$/;

/**
 * The TypeScript blocks of a Markdown file that are no file of a reader's project (those, marked
 * `<!-- snippet: <path> -->`, are built into one and checked there: `projectSnippets`). A fragment (one that uses a `db` or an import it does
 * not show) says what it leans on in an HTML comment right above its fence, which the rendered
 * page does not show: `<!-- snippet context: import { inbox } from 'sqs-inbox/middleware'; declare const db: Database; -->`.
 *
 * @example
 * ```ts
 * snippetsOf(readFileSync('docs/kafka.md', 'utf8')) // [{ line: 8, context: '', code: "// functions/ship-orders/index.ts ..." }, ...]
 * ```
 */
export function snippetsOf(markdown: string): Snippet[] {
  const lines = markdown.split('\n');
  const snippets: Snippet[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    if (lines[index]!.trim() !== '```ts') continue;
    const end = lines.findIndex((line, at) => at > index && line.trim() === '```');
    if (end < 0) throw new Error(`the ts block at line ${index + 1} is not closed`);
    if (PROJECT_FILE.test(lines[index - 1]?.trim() ?? '')) {
      index = end;
      continue;
    }
    const context = CONTEXT.exec(lines[index - 1]?.trim() ?? '')?.[1] ?? '';
    snippets.push({ line: index + 2, context, code: lines.slice(index + 1, end).join('\n') });
    index = end;
  }
  return snippets;
}

/**
 * Typechecks each snippet as a module of its own against the repository's sources, the package's
 * entry points (`sqs-inbox`, `sqs-inbox/<part>`) mapped to the files their declarations are built
 * from, with the repository's compiler options: the snippets of every Markdown file given, in one
 * program. Answers one line per error, `<file>:<line>: <text>`, the line counted in the Markdown file.
 *
 * @example
 * ```ts
 * typecheckSnippets(new Map([['README.md', snippetsOf(text)]])) // [] when every snippet compiles
 * ```
 */
export function typecheckSnippets(documents: ReadonlyMap<string, readonly Snippet[]>): string[] {
  const configFile = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
  const paths = Object.fromEntries([...entryPoints()].map(([entry, source]) => [entry === '.' ? 'sqs-inbox' : `sqs-inbox/${entry.slice(2)}`, [source]]));
  const compilerOptions: ts.CompilerOptions = { ...options, noEmit: true, baseUrl: ROOT, paths };
  // Each snippet is a file beside package.json, so its imports resolve as the repository's would.
  const sources = new Map([...documents].flatMap(([file, snippets]) => snippets.map((snippet) =>
    [path.join(ROOT, `${file.replace(/\.md$/, '').replace(/\W/g, '-')}-snippet-${snippet.line}.ts`), { file, snippet }] as const)));
  const text = (snippet: Snippet) => `${snippet.context}\n${snippet.code}\n`;
  const host = ts.createCompilerHost(compilerOptions);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => sources.has(name) || fileExists.call(host, name);
  host.readFile = (name) => (sources.has(name) ? text(sources.get(name)!.snippet) : readFile.call(host, name));
  host.getSourceFile = (name, language, ...rest) => {
    const found = sources.get(name);
    return found ? ts.createSourceFile(name, text(found.snippet), language) : getSourceFile.call(host, name, language, ...rest);
  };
  const program = ts.createProgram([...sources.keys()], compilerOptions, host);
  return [...sources].flatMap(([name, { file, snippet }]) => {
    const source = program.getSourceFile(name)!;
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((diagnostic) => {
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const where = line === 0 ? `${snippet.line - 1} (its context)` : String(snippet.line + line - 1);
      return `${file}:${where}: TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
    });
  });
}

/** The snippets of a Markdown file of the repository, read from disk. */
export function repositorySnippets(file: string): Snippet[] {
  return snippetsOf(readFileSync(path.join(ROOT, file), 'utf8'));
}
