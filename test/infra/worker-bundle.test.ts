import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { INBOX_BUNDLING } from '../../lib/inbox-function.js';

const WORKER = fileURLToPath(new URL('../../functions/order-worker/index.ts', import.meta.url));

/** The worker bundled as the construct bundles it, with esbuild's account of what went in. */
async function bundleInputs(entry: string): Promise<{ bytes: number; packages: Map<string, number> }> {
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    outfile: 'index.mjs',
    platform: 'node',
    target: 'node24',
    format: 'esm',
    minify: INBOX_BUNDLING.minify,
    keepNames: INBOX_BUNDLING.keepNames,
    mainFields: [...INBOX_BUNDLING.mainFields],
    banner: { js: INBOX_BUNDLING.banner },
    external: [...INBOX_BUNDLING.externalModules],
  });
  const output = Object.values(result.metafile.outputs)[0]!;
  const packages = new Map<string, number>();
  for (const [file, input] of Object.entries(output.inputs)) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? '(kit)';
    packages.set(name, (packages.get(name) ?? 0) + input.bytesInOutput);
  }
  return { bytes: output.bytes, packages };
}

describe('the order worker bundles only what a Data API worker runs', () => {
  let bundle: Awaited<ReturnType<typeof bundleInputs>>;
  beforeAll(async () => {
    bundle = await bundleInputs(WORKER);
    const top = [...bundle.packages.entries()].sort((a, b) => b[1] - a[1]);
    console.info(`worker bundle: ${bundle.bytes} bytes; ${top.map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(1)} KiB`).join(', ')}`);
  });

  it('holds no node-postgres: the Data API entry point does not pull the pg driver in', () => {
    expect([...bundle.packages.keys()].filter((name) => name.startsWith('pg'))).toEqual([]);
  });

  it('holds no AWS SDK: the runtime provides it', () => {
    expect([...bundle.packages.keys()].filter((name) => name.startsWith('@aws-sdk/') || name.startsWith('@smithy/'))).toEqual([]);
  });

  it('takes zod in its tree-shakable form: a few KiB, not its locales', () => {
    expect(bundle.packages.get('zod') ?? 0).toBeLessThan(40 * 1024);
  });
});
