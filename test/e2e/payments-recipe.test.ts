import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from '../../functions/inbox/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { createScratchDatabase, migrateAsDeployed } from '../../local/index.js';
import { projectSnippets } from '../support/doc-snippets.js';
import { ROOT } from '../support/documentation.js';
import { RECIPE_RUN_TIMEOUT_MS, recipeTest, typecheckRecipes, writeRecipeProject } from '../support/recipe-project.js';

const run = promisify(execFile);

/** The payments part of the documented project (docs/example-payments.md): its stack, migration, handlers and test. */
const FILES = ['lib/payments-stack.ts', 'migrations/payments/0001_payments.sql', 'src/payments.ts', 'src/wallet-ledger.ts', 'test/payments.test.ts'] as const;
/** The tests of test/payments.test.ts, by title. */
const TITLES = [
  'applies a payment once though it is sent twice, and its wallet event once at the ledger though it comes twice',
  'rejects a payment for a missing wallet, keeps its body as sent, and a replay applies it once the wallet exists',
] as const;
const MIGRATION = 'migrations/payments/0001_payments.sql';
/** The roles of lib/payments-stack.ts and the operator's, as its test makes them. */
const ROLES = { apply_payments: 'consumer', apply_payments_relay: 'relay', wallet_ledger: 'consumer', payments_operator: 'operator' } as const;
/** The roles the stack makes. */
const STACK_ROLES = ['apply_payments', 'apply_payments_relay', 'wallet_ledger'];
const PAYMENTS_GRANTS = /^GRANT .* TO apply_payments;\n/gm;
const TARGET = "target: 'walletEvents'";

type Resource = { Type: string; Properties: Record<string, unknown> };

let folder: string;
const removals: (() => Promise<void>)[] = [];

/** The documented project with `changed`'s text changed by `edit`, the rest as documented. */
const editing = (changed: string, edit: (text: string) => string) => (file: string, text: string) => (file === changed ? edit(text) : text);

beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'payments-recipe-'));
});

afterAll(async () => {
  for (const remove of removals) await remove();
  await rm(folder, { recursive: true, force: true });
});

describe('docs/example-payments.md: the payments project runs as documented, and its test can fail', () => {
  it('passes: a payment applied once and told once through SNS to the ledger; one for a missing wallet rejected, kept and replayed once', async () => {
    const results = await recipeTest(await writeRecipeProject(path.join(folder, 'documented'), FILES, { runnable: true }));
    expect(results).toEqual(TITLES.map((title) => ({ title, status: 'passed', failureMessages: [] })));
  }, RECIPE_RUN_TIMEOUT_MS);

  it('fails when the migration lacks the payments role\'s GRANTs, as every payment would fail in AWS', async () => {
    expect(projectSnippets().get(MIGRATION)!.match(PAYMENTS_GRANTS)).toHaveLength(2);
    const project = await writeRecipeProject(path.join(folder, 'ungranted'), FILES, { runnable: true, edit: editing(MIGRATION, (text) => text.replace(PAYMENTS_GRANTS, '')) });
    const results = await recipeTest(project);
    // Both fail on payments left in their queue (the setup done, the handlers imported, the payments retried), not in the setup.
    const left = /^AssertionError: messages in payments, its DLQ, wallet-ledger, its DLQ: expected \[ [1-9]/;
    expect(results).toEqual(TITLES.map((title) => ({ title, status: 'failed', failureMessages: [expect.stringMatching(left)] })));

    // Why: the role the payments handler signs in as may not touch the wallets, as Aurora answers in AWS.
    const scratch = await createScratchDatabase(inject('pgAdminUrl'), 'payments_ungranted');
    const deployed = await migrateAsDeployed(scratch.url, { migrations: path.join(project, 'migrations/payments'), roles: ROLES });
    const consumer = pgDatabase({ connectionString: deployed.roles['apply_payments']!.url });
    try {
      const credit = sql`UPDATE wallets SET balance_cents = balance_cents + 1 WHERE wallet_id = ${sql.uuid(randomUUID())}`;
      const denied = await consumer.query(credit).then(() => undefined, (error: unknown) => error);
      expect(denied).toMatchObject({ sqlState: '42501', message: expect.stringMatching(/permission denied for table wallets/) });
    } finally {
      await consumer.close();
      await scratch.drop();
    }
  }, RECIPE_RUN_TIMEOUT_MS);

  it('synthesizes its stack as the app it is, bundling its handlers: two consumers, the outbox to the topic, the ledger\'s queue subscribed in envelopes', async () => {
    // Inside the repository (its ignored .tmp/): NodejsFunction bundles only entries under the project's root (the lock
    // file's folder), and the kit's functions are the repository's here. The installed-package test bundles from the package.
    await mkdir(path.join(ROOT, '.tmp'), { recursive: true });
    const project = await writeRecipeProject(await mkdtemp(path.join(ROOT, '.tmp', 'payments-recipe-')), FILES, { runnable: true });
    removals.push(() => rm(project, { recursive: true, force: true }));
    const assembly = path.join(project, 'cdk.out');
    // CDK_OUTDIR is what the CDK CLI sets: the App synthesizes there when the program ends. tsx keeps its cache in TMPDIR.
    await run(process.execPath, ['--import', 'tsx', 'lib/payments-stack.ts'], { cwd: project, env: { ...process.env, CDK_OUTDIR: assembly, TMPDIR: folder }, timeout: RECIPE_RUN_TIMEOUT_MS });
    const template = JSON.parse(await readFile(path.join(assembly, 'Payments.template.json'), 'utf8')) as { Resources: Record<string, Resource> };
    const ofType = (type: string) => Object.values(template.Resources).filter((resource) => resource.Type === type);

    expect(ofType('AWS::Lambda::EventSourceMapping').map(({ Properties }) => Properties.FunctionResponseTypes)).toEqual([['ReportBatchItemFailures'], ['ReportBatchItemFailures']]);
    const queueSubscriptions = ofType('AWS::SNS::Subscription').filter(({ Properties }) => Properties.Protocol === 'sqs');
    expect(queueSubscriptions).toEqual([expect.objectContaining({ Properties: expect.not.objectContaining({ RawMessageDelivery: true }) })]);
    const roles = JSON.stringify(ofType('Custom::InboxMigrations').map(({ Properties }) => Properties.Roles));
    for (const role of STACK_ROLES) expect(roles).toContain(`\\"${role}\\":{`);
    // The payments function and its relay: the topic as walletEvents, and the consumer's name the handler writes under.
    const senders = ofType('AWS::Lambda::Function').map(({ Properties }) => (Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {})
      .filter((variables) => variables.INBOX_OUTBOX_TARGETS !== undefined);
    expect(senders.map((variables) => [JSON.stringify(variables.INBOX_OUTBOX_TARGETS), variables.POWERTOOLS_SERVICE_NAME]))
      .toEqual([[expect.stringMatching(/walletEvents.*\\"type\\":\\"sns\\".*WalletEvents/), 'payments'], [expect.stringMatching(/walletEvents/), 'payments']]);
    expect(ofType('AWS::CloudWatch::Dashboard')).toHaveLength(1);
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
