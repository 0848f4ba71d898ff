import { describe, expect, it } from 'vitest';
import { parameterCounts, widerThanLimit } from '../../scripts/parameter-lists.js';

describe('the pipeline passes one context, not a long list: no function of it takes more than 4 parameters', () => {
  it('has none wider in functions/inbox/pipeline', () => {
    expect(widerThanLimit().map((found) => `${found.file}:${found.line} takes ${found.parameters}, limit ${found.limit}`)).toEqual([]);
  });

  it('counts the parameters of functions, methods and arrow functions, and not of a type', () => {
    const text = [
      'export function five(a: 1, b: 2, c: 3, d: 4, e: 5) {}', // 1
      'type Wide = (a: 1, b: 2, c: 3, d: 4, e: 5) => void;', // 2: a type, not counted
      'const two = (a: 1, b: 2) => a + b;', // 3
      'class Box { open(a: 1) { return a; } }', // 4
    ].join('\n');
    expect(parameterCounts('x.ts', text).map(({ line, parameters }) => ({ line, parameters }))).toEqual([
      { line: 1, parameters: 5 },
      { line: 3, parameters: 2 },
      { line: 4, parameters: 1 },
    ]);
  });
});
