import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INBOX_RUNTIME } from '../../lib/inbox-runtime.js';

/** The NODEJS_<n>_X runtimes the installed aws-cdk-lib declares, read from its type declarations. */
function declaredNodeMajors(): number[] {
  const require = createRequire(import.meta.url);
  const dts = readFileSync(path.join(path.dirname(require.resolve('aws-cdk-lib/package.json')), 'aws-lambda/lib/runtime.d.ts'), 'utf8');
  return [...dts.matchAll(/static readonly NODEJS_(\d+)_X: Runtime;/g)].map((match) => Number(match[1]));
}

describe('the Lambda runtime is pinned, and a newer one is announced', () => {
  it('is a Node.js runtime the installed aws-cdk-lib declares', () => {
    const pinned = Number(/^nodejs(\d+)\.x$/.exec(INBOX_RUNTIME.name)?.[1]);
    expect(declaredNodeMajors()).toContain(pinned);
  });

  it('is the newest one the installed aws-cdk-lib offers (this fails when a newer one appears: test on it, then move INBOX_RUNTIME)', () => {
    const newest = `nodejs${Math.max(...declaredNodeMajors())}.x`;
    expect(INBOX_RUNTIME.name, `aws-cdk-lib now offers ${newest}: run the suite on it and set INBOX_RUNTIME in lib/inbox-runtime.ts`).toBe(newest);
  });
});
