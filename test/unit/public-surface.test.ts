import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The most public names each entry point may have. A user holds an entry point in their head by
 * its names: the start functions, their options and results, the few helpers a test calls.
 */
const LIMITS: Readonly<Record<string, number>> = {
  './local': 20,
};

interface PackageJson {
  readonly exports: Record<string, string | { readonly types?: string }>;
  readonly files: readonly string[];
}

const packageJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** Each entry point of package.json `exports` and the source file its declarations are built from. */
function entrySources(): Map<string, string> {
  const entries = new Map<string, string>();
  for (const [entry, target] of Object.entries(packageJson.exports)) {
    const types = typeof target === 'string' ? undefined : target.types;
    if (types === undefined) continue;
    entries.set(entry, path.join(ROOT, types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')));
  }
  return entries;
}

/**
 * The package's build (tsconfig.build.json) as a program in memory, nothing emitted. Only the
 * repository's own files are read: the names an entry point exports are declared there, and leaving
 * out the dependencies' declarations (aws-cdk-lib's above all) makes this a fraction of a second.
 */
function buildProgram(): ts.Program {
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.build.json'), ts.sys.readFile);
  const { options, fileNames } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const settings = { ...options, noEmit: true, types: [], noLib: true };
  const host = ts.createCompilerHost(settings);
  const ownFile = (file: string) => !path.relative(ROOT, file).startsWith('..') && !file.includes(`${path.sep}node_modules${path.sep}`);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, ...rest) => (ownFile(file) ? getSourceFile(file, ...rest) : undefined);
  return ts.createProgram(fileNames, settings, host);
}

describe('the public surface: names per entry point, counted from the declarations the build emits', () => {
  const program = buildProgram();
  const checker = program.getTypeChecker();
  const entries = entrySources();
  const names = new Map([...entries].map(([entry, file]) => {
    const source = program.getSourceFile(file);
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    return [entry, module === undefined ? undefined : checker.getExportsOfModule(module).map((symbol) => symbol.name).sort()];
  }));

  it('every entry point of package.json is built', () => {
    expect(entries.size).toBeGreaterThanOrEqual(8);
    expect([...names].filter(([, exported]) => exported === undefined).map(([entry]) => entry)).toEqual([]);
    console.log([...names].map(([entry, exported]) => `${entry.padEnd(14)} ${String(exported!.length).padStart(3)} names`).join('\n'));
  });

  it.each(Object.entries(LIMITS))('%s has at most %i names', (entry, limit) => {
    const exported = names.get(entry);
    expect(exported, `${entry} is not an entry point of package.json`).toBeDefined();
    expect(exported!.length, `${entry} exports ${exported!.join(', ')}`).toBeLessThanOrEqual(limit);
  });

  it('counts names and types alike, re-exports included', () => {
    expect(names.get('./local')).toEqual(expect.arrayContaining(['startDataApi', 'StartDataApiOptions', 'RunningDataApi']));
  });

  it('the package carries the build and the README only, and the build holds no demo, test, bench or CLI file', () => {
    expect([...packageJson.files].sort()).toEqual(['README.md', 'dist/']);
    const built = program.getSourceFiles().map((file) => path.relative(ROOT, file.fileName)).filter((file) => !file.startsWith('..') && !file.startsWith('node_modules'));
    expect(built.length).toBeGreaterThan(100);
    expect(built.filter((file) => /^(demo|test|bench|bin)\//.test(file) || /(^|\/)(demo|order-worker)\//.test(file))).toEqual([]);
  });
});
