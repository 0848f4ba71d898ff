import { describe, expect, it } from 'vitest';
import { progressOf } from '../../functions/inbox/operator/cli/progress.js';

/** A progress on a clock the test moves, writing to a string. */
function recorded(stderrTerminal: boolean) {
  let nowMs = 0;
  const written: string[] = [];
  const progress = progressOf({ stderr: (text) => written.push(text), stderrTerminal }, 'rejected replay', 250, { everyItems: 100, everyMs: 5000, now: () => nowMs });
  return { progress, written, advance: (ms: number) => { nowMs += ms; } };
}

describe('without a terminal, progress is plain lines every so many items or seconds, and one at the end', () => {
  it('writes a line per 100 items and the last count, never a carriage return', () => {
    const { progress, written, advance } = recorded(false);

    for (let done = 1; done <= 250; done += 1) {
      advance(10);
      progress.update(done);
    }
    progress.end();

    expect(written).toEqual(['rejected replay: 100/250  1.0 s\n', 'rejected replay: 200/250  2.0 s\n', 'rejected replay: 250/250  2.5 s\n']);
  });

  it('writes a line after five seconds however few items went', () => {
    const { progress, written, advance } = recorded(false);

    progress.update(1);
    advance(5000);
    progress.update(2);

    expect(written).toEqual(['rejected replay: 2/250  5.0 s\n']);
  });
});

describe('at a terminal, progress is one line redrawn in place', () => {
  it('starts each update with a carriage return and ends the line once', () => {
    const { progress, written, advance } = recorded(true);

    advance(1000);
    progress.update(125);
    progress.end();

    expect(written).toEqual([`\r[${'#'.repeat(12)}${'.'.repeat(12)}] rejected replay: 125/250  1.0 s`, `\r[${'#'.repeat(12)}${'.'.repeat(12)}] rejected replay: 125/250  1.0 s\n`]);
  });
});
