import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** One function's length: where it is and how many lines its body spans, braces included. */
export interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
}

/** The folders whose functions are held to a length, and the longest each allows. */
export const LENGTH_LIMITS = [
  { folder: 'functions/inbox', limit: 60 },
  { folder: 'lib', limit: 60 },
  { folder: 'local', limit: 60 },
  { folder: 'demo', limit: 80 },
] as const;

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The .ts files under `folder`, declarations left out, in a stable order. */
export function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The name a reader would look for: the function's, the method's, or the variable or property holding it. */
function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText();
  }
  return '(anonymous)';
}

/** Every function, method and arrow function with a block body in `text`, and its body's length in lines. */
export function functionLengths(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body && ts.isBlock(node.body as ts.Node)) {
      const body = node.body as ts.Block;
      const start = lineOf(body.getStart(source));
      found.push({ file, name: functionName(node as ts.FunctionLikeDeclaration), line: lineOf(node.getStart(source)), lines: lineOf(body.getEnd()) - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The functions over their folder's limit, longest first, with paths relative to the repository. */
export function overLimit(root = ROOT): (FunctionLength & { limit: number })[] {
  return LENGTH_LIMITS.flatMap(({ folder, limit }) => typeScriptFiles(join(root, folder))
    .flatMap((path) => functionLengths(relative(root, path), readFileSync(path, 'utf8')))
    .filter((found) => found.lines > limit)
    .map((found) => ({ ...found, limit })))
    .sort((a, b) => b.lines - a.lines);
}

// Run as a script (`npx tsx scripts/function-lengths.ts`): lists every function over its folder's limit.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const found of overLimit()) console.log(`${found.lines}\t${found.file}:${found.line}\t${found.name} (limit ${found.limit})`);
}
