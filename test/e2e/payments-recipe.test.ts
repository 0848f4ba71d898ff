import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectSnippets } from '../support/doc-snippets.js';
import { RECIPE_RUN_TIMEOUT_MS, recipeTest, typecheckRecipes, writeRecipeProject } from '../support/recipe-project.js';

/** The payments part of the documented project (docs/example-payments.md): its stack, migration, handlers and test. */
const FILES = ['lib/payments-stack.ts', 'migrations/payments/0001_payments.sql', 'src/payments.ts', 'src/wallet-ledger.ts', 'test/payments.test.ts'] as const;
/** The tests of test/payments.test.ts, by title. */
const TITLES = [
  'applies a payment once though it is sent twice, and its wallet event reaches the ledger once',
  'rejects a payment for a wallet that does not exist: acknowledged, nothing applied, nothing told',
] as const;
const PAYMENTS_GRANTS = /^GRANT .* TO apply_payments;\n/gm;
const TARGET = "target: 'walletEvents'";

let folder: string;

/** The documented project with `file`'s text changed by `edit`, the rest as documented. */
const editing = (changed: string, edit: (text: string) => string) => (file: string, text: string) => (file === changed ? edit(text) : text);

beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'payments-recipe-'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('docs/example-payments.md: the payments project runs as documented, and its test can fail', () => {
  it('passes: a payment applied once and told once through SNS to the ledger, a payment for a missing wallet rejected', async () => {
    const results = await recipeTest(await writeRecipeProject(path.join(folder, 'documented'), FILES, { runnable: true }));
    expect(results).toEqual(TITLES.map((title) => ({ title, status: 'passed', failureMessages: [] })));
  }, RECIPE_RUN_TIMEOUT_MS);

  it('fails when the migration lacks the payments role\'s GRANTs, as every payment would fail in AWS', async () => {
    expect(projectSnippets().get('migrations/payments/0001_payments.sql')!.match(PAYMENTS_GRANTS)).toHaveLength(2);
    const edit = editing('migrations/payments/0001_payments.sql', (text) => text.replace(PAYMENTS_GRANTS, ''));
    const results = await recipeTest(await writeRecipeProject(path.join(folder, 'ungranted'), FILES, { runnable: true, edit }));
    expect(results.find(({ title }) => title === TITLES[0])).toMatchObject({ status: 'failed' });
  }, RECIPE_RUN_TIMEOUT_MS);

  it('typechecks as documented, and refuses a typo in the outbox target\'s name', async () => {
    expect(projectSnippets().get('src/payments.ts')).toContain(TARGET);
    const typo = editing('src/payments.ts', (text) => text.replace(TARGET, "target: 'walletEvent'"));
    const projects = {
      documented: await writeRecipeProject(path.join(folder, 'typed'), FILES, { runnable: false }),
      typo: await writeRecipeProject(path.join(folder, 'typo'), FILES, { runnable: false, edit: typo }),
    };
    const errors = typecheckRecipes(projects, FILES);
    expect(errors.documented).toEqual([]);
    expect(errors.typo).toEqual([expect.stringMatching(/^src\/payments\.ts:\d+: TS2322 Type '"walletEvent"' is not assignable to type '"walletEvents"'/)]);
  }, 180_000);
});
