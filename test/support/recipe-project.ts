import { execFile } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { inject } from 'vitest';
import { projectSnippets } from './doc-snippets.js';
import { ROOT } from './documentation.js';
import { entryPoints } from './public-names.js';

const run = promisify(execFile);

/** How long a recipe project's own vitest run may take. */
export const RECIPE_RUN_TIMEOUT_MS = 150_000;

/** The package's entry points as module names (`sqs-inbox`, `sqs-inbox/local`), each with its source in this repository. */
function entrySources(): Map<string, string> {
  return new Map([...entryPoints()].map(([entry, source]) => [entry === '.' ? 'sqs-inbox' : `sqs-inbox/${entry.slice(2)}`, path.join(ROOT, source)]));
}

/** `from 'sqs-inbox/...'` pointed at the entry point's source in this repository, so the recipe runs against the kit as it is. */
export function onSources(code: string): string {
  const sources = entrySources();
  return code.replace(/from 'sqs-inbox(\/[a-z-]+)?'/g, (_, sub: string | undefined) => {
    const source = sources.get(`sqs-inbox${sub ?? ''}`);
    if (source === undefined) throw new Error(`The recipe imports sqs-inbox${sub ?? ''}, which package.json does not export.`);
    return `from '${source}'`;
  });
}

/** How a recipe project is written: each file's text changed by `edit` (the documented text by default), its imports on the sources or not. */
export interface RecipeProjectOptions {
  readonly edit?: (file: string, text: string) => string;
  /** Point `sqs-inbox` imports at the repository's sources, for a run; left as written for a typecheck (`typecheckRecipes` maps them). */
  readonly runnable: boolean;
}

/**
 * Writes the documented project's `files` (the marked snippets of the pages) into `project`, with
 * a package.json and this repository's node_modules.
 *
 * @example
 * ```ts
 * await writeRecipeProject(path.join(folder, 'granted'), ['src/ship-orders.ts', 'test/ship-orders.test.ts'], { runnable: true });
 * ```
 */
export async function writeRecipeProject(project: string, files: readonly string[], options: RecipeProjectOptions): Promise<string> {
  const snippets = projectSnippets();
  for (const file of files) {
    const documented = snippets.get(file);
    if (documented === undefined) throw new Error(`The documentation marks no snippet ${file}.`);
    const text = options.edit?.(file, documented) ?? documented;
    await mkdir(path.dirname(path.join(project, file)), { recursive: true });
    await writeFile(path.join(project, file), options.runnable && file.endsWith('.ts') ? onSources(text) : text);
  }
  await writeFile(path.join(project, 'package.json'), '{ "type": "module" }\n');
  await symlink(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  return project;
}

/** One test of the project's run, as vitest's JSON reporter gives it. */
export interface RecipeResult {
  readonly title: string;
  readonly status: string;
  readonly failureMessages: readonly string[];
}

/** Runs the project's vitest tests on this run's PostgreSQL server: each test's result, as vitest's JSON reporter gives them. */
export async function recipeTest(project: string): Promise<RecipeResult[]> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: inject('pgAdminUrl'), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  for (const name of ['VITEST', 'VITEST_WORKER_ID', 'VITEST_POOL_ID']) delete env[name];
  const vitest = [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', project, '--reporter=json'];
  // vitest exits 1 when a test fails; its report is on stdout either way.
  const stdout = await run(process.execPath, vitest, { cwd: project, env, timeout: RECIPE_RUN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 })
    .then(({ stdout: out }) => out, (error: { stdout?: string; stderr?: string }) => {
      if (!error.stdout?.trim().startsWith('{')) throw new Error(`The recipe's vitest gave no report: ${error.stderr ?? String(error)}`);
      return error.stdout;
    });
  const report = JSON.parse(stdout) as { testResults: { assertionResults: RecipeResult[] }[] };
  return report.testResults.flatMap(({ assertionResults }) => assertionResults.map(({ title, status, failureMessages }) => ({ title, status, failureMessages })));
}

/**
 * Typechecks the TypeScript files of recipe projects written with `runnable: false`, in one
 * program, with the repository's compiler options and the package's entry points mapped to their
 * sources (as `typecheckSnippets` does for the pages' fragments): one line per error,
 * `<file in its project>:<line>: TS<code> <text>`, by project.
 *
 * @example
 * ```ts
 * typecheckRecipes({ typed: path.join(folder, 'typed') }, ['src/payments.ts']) // { typed: [] }
 * ```
 */
export function typecheckRecipes<P extends string>(projects: Readonly<Record<P, string>>, files: readonly string[]): Record<P, string[]> {
  const configFile = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
  const paths = Object.fromEntries([...entrySources()].map(([name, source]) => [name, [source]]));
  const typescriptFiles = files.filter((file) => file.endsWith('.ts'));
  const roots = Object.values<string>(projects).flatMap((project) => typescriptFiles.map((file) => path.join(project, file)));
  const program = ts.createProgram(roots, { ...options, noEmit: true, paths });
  return Object.fromEntries(Object.entries<string>(projects).map(([name, project]) => [name, typescriptFiles.flatMap((file) => {
    const source = program.getSourceFile(path.join(project, file))!;
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((diagnostic) => {
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      return `${file}:${line + 1}: TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
    });
  })])) as Record<P, string[]>;
}
