import { describe, expect, it } from 'vitest';
import { functionLengths, overLimit } from '../../scripts/function-lengths.js';

describe('no function you cannot read on one screen: 60 lines in functions/inbox, lib and local, 80 in demo', () => {
  const found = overLimit();
  const named = (entries: typeof found) => entries.map((entry) => `${entry.file} ${entry.name}: ${entry.lines} lines, limit ${entry.limit}`);

  it('has none over its limit in demo/', () => {
    expect(named(found.filter((entry) => entry.file.startsWith('demo/')))).toEqual([]);
  });

  it('has none over its limit in functions/inbox, lib/ and local/', () => {
    expect(named(found.filter((entry) => !entry.file.startsWith('demo/')))).toEqual([]);
  });
});

describe('functionLengths counts the lines of each body, braces included', () => {
  it('measures functions, methods, arrow functions and nested ones, by the name that holds them', () => {
    const text = [
      'export function outer() {', // 1
      '  const inner = () => {', // 2
      '    return 1;', // 3
      '  };', // 4
      '  return inner();', // 5
      '}', // 6
      'class Box {', // 7
      '  open() { return 2; }', // 8
      '}', // 9
      'const short = () => 3;', // 10: no body block, not counted
      'const handlers = { onBatch: function () {', // 11
      '} };', // 12
    ].join('\n');
    expect(functionLengths('x.ts', text).map(({ name, line, lines }) => ({ name, line, lines }))).toEqual([
      { name: 'outer', line: 1, lines: 6 },
      { name: 'inner', line: 2, lines: 3 },
      { name: 'open', line: 8, lines: 1 },
      { name: 'onBatch', line: 11, lines: 2 },
    ]);
  });
});
