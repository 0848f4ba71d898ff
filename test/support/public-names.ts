import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The package's entry points (package.json `exports`, the JSON file aside), each with the source its declarations are built from. */
export function entryPoints(): Map<string, string> {
  const { exports } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | { types?: string }> };
  return new Map(Object.entries(exports)
    .filter((entry): entry is [string, { types: string }] => typeof entry[1] === 'object' && typeof entry[1].types === 'string')
    .map(([name, { types }]) => [name, types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')]));
}

/**
 * The names each entry point offers, as a user's `import { ... }` sees them: every export of its
 * module, re-exports followed, a name that is both a type and a value (a class, an `as const`
 * object with its type) counted once. Read with the compiler from the sources the declarations
 * are emitted from, which export the same names.
 */
export function publicNames(): Map<string, string[]> {
  const entries = entryPoints();
  const configFile = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
  const program = ts.createProgram([...entries.values()].map((file) => path.join(ROOT, file)), { ...options, noEmit: true });
  const checker = program.getTypeChecker();
  return new Map([...entries].map(([name, file]) => {
    const source = program.getSourceFile(path.join(ROOT, file));
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${name}: ${file} is not a module the compiler can read`);
    return [name, checker.getExportsOfModule(module).map((symbol) => symbol.getName()).sort()];
  }));
}
