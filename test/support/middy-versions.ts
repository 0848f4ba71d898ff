import { readFileSync } from 'node:fs';
import middy6 from '@middy/core';
import middy7 from 'middy7';

/** The major Node.js version a package's `engines.node` asks for at least (`>=22` gives 22). */
function leastNodeMajor(packageJson: URL): number {
  const { engines } = JSON.parse(readFileSync(packageJson, 'utf8')) as { engines: { node: string } };
  return Number(/^>=\s*(\d+)/.exec(engines.node)?.[1] ?? Number.POSITIVE_INFINITY);
}

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const MIDDY_7_NEEDS = leastNodeMajor(new URL('../../node_modules/middy7/package.json', import.meta.url));

/**
 * The middy majors the peer range admits (`@middy/core` 6, and 7 installed as the `middy7` alias),
 * each where its `engines` allow: middy 7 needs Node.js 22 or newer, so on Node.js 20 only middy 6
 * runs, and CI's Node.js 24 steps run both. Both are typed as middy 6's factory, so one test body
 * serves both: their declarations differ in names only a plugin sees (`PluginObject`), and how the
 * kit's middleware fits middy 7's own types is test/types/middy-versions.test.ts's to check.
 */
export const middyVersions: { name: string; middy: typeof middy6 }[] = [
  { name: 'middy 6', middy: middy6 },
  ...(NODE_MAJOR >= MIDDY_7_NEEDS ? [{ name: 'middy 7', middy: middy7 as unknown as typeof middy6 }] : []),
];
