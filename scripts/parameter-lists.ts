import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { typeScriptFiles } from './function-lengths.js';

/** The folders whose functions take few parameters (a context object past that), and the most each allows. */
export const PARAMETER_LIMITS = [{ folder: 'functions/inbox/pipeline', limit: 4 }] as const;

/** A function, method or arrow function with more parameters than its folder allows. */
export interface WideFunction {
  file: string;
  line: number;
  parameters: number;
  limit: number;
}

/** Every function-like declaration in `text` and its number of parameters. */
export function parameterCounts(file: string, text: string): { file: string; line: number; parameters: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { file: string; line: number; parameters: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && !ts.isFunctionTypeNode(node) && !ts.isCallSignatureDeclaration(node) && !ts.isMethodSignature(node)) {
      found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, parameters: node.parameters.length });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The functions over their folder's parameter limit, with paths relative to the repository. */
export function widerThanLimit(root = fileURLToPath(new URL('..', import.meta.url))): WideFunction[] {
  return PARAMETER_LIMITS.flatMap(({ folder, limit }) => typeScriptFiles(join(root, folder))
    .flatMap((path) => parameterCounts(relative(root, path), readFileSync(path, 'utf8')))
    .filter((found) => found.parameters > limit)
    .map((found) => ({ ...found, limit })));
}
