import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What `npm pack --json` says of a tarball: its size, unpacked size (bytes) and file count. */
export interface PackFigures {
  size: number;
  unpackedSize: number;
  entryCount: number;
}

/** docs/package.md, whose sentence on the tarball carries the figures. */
export const PACKAGE_PAGE = fileURLToPath(new URL('../docs/package.md', import.meta.url));
const FIGURES = /\((\d[\d,]*) KB, (\d[\d,]*) files, (\d[\d,]*) KB unpacked\)/;

const kilobytes = (bytes: number) => Math.round(bytes / 1000).toLocaleString('en-US');

/** The figures as the page writes them: `(406 KB, 504 files, 1,302 KB unpacked)`. */
export function formatFigures(figures: PackFigures): string {
  return `(${kilobytes(figures.size)} KB, ${figures.entryCount.toLocaleString('en-US')} files, ${kilobytes(figures.unpackedSize)} KB unpacked)`;
}

/** The figures a page states, in bytes and files as `npm pack` counts them (KB read as 1,000 bytes). */
export function statedFigures(page: string): PackFigures {
  const found = FIGURES.exec(page);
  if (!found) throw new Error('docs/package.md states no tarball figures "(N KB, N files, N KB unpacked)"');
  const [size, entryCount, unpackedSize] = found.slice(1).map((figure) => Number(figure.replaceAll(',', '')));
  return { size: size! * 1000, entryCount: entryCount!, unpackedSize: unpackedSize! * 1000 };
}

/** The page with its figures replaced by these. */
export function withFigures(page: string, figures: PackFigures): string {
  statedFigures(page);
  return page.replace(FIGURES, formatFigures(figures));
}

// Run as a script (`npm run figures:package`, after a build): measures the package as it stands and
// rewrites the page's figures; test/e2e/installed-package.test.ts fails when they drift.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const [figures] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' })) as PackFigures[];
  writeFileSync(PACKAGE_PAGE, withFigures(readFileSync(PACKAGE_PAGE, 'utf8'), figures!));
  console.log(`docs/package.md: ${formatFigures(figures!)}`);
}
