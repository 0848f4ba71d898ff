import type { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { INBOX_RUNTIME } from './inbox-runtime.js';

/**
 * How every function of the kit is bundled: esbuild on this machine (never Docker), minified, ES
 * module output, names kept so stack traces stay readable without a source map. The AWS SDK is not
 * bundled: the Node.js runtime ships SDK v3, which AWS keeps patched, and the kit calls only
 * long-stable operations of it (Data API Execute/Begin/Commit/Rollback); bundled, the SDK was 300 KB
 * of a 380 KB worker. No source map is shipped: `--enable-source-maps` slows every stack trace and
 * the map would double the asset. ESM output keeps top-level `await` and ESM-only packages (middy)
 * working; the banner gives bundled CommonJS dependencies the `require` they expect.
 *
 * @example
 * ```ts
 * await esbuild.build({ entryPoints: [entry], bundle: true, minify: INBOX_BUNDLING.minify, format: 'esm', ... });
 * ```
 */
export const INBOX_BUNDLING = {
  forceDockerBundling: false,
  minify: true,
  keepNames: true,
  sourceMap: false,
  format: nodejs.OutputFormat.ESM,
  mainFields: ['module', 'main'],
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  bundleAwsSDK: false,
  // Given here, these replace the CDK's own externals: the SDK and its Smithy packages come from the
  // runtime, and pg's optional native binding is never installed (pg runs in pure JS).
  externalModules: ['@aws-sdk/*', '@smithy/*', 'pg-native'],
} as const satisfies nodejs.BundlingOptions;

/** What differs between the kit's functions; everything else is fixed by `inboxFunction`. */
export interface InboxFunctionProps {
  /** Path of the handler's TypeScript file. */
  readonly entry: string;
  /**
   * Exported name of the handler.
   * @default 'handler'
   */
  readonly handler?: string;
  /** Function timeout. */
  readonly timeout: Duration;
  /** Memory in MiB. */
  readonly memorySize: number;
  /** Environment variables. */
  readonly environment: Record<string, string>;
  /** Retention of the function's log group. */
  readonly logRetention: logs.RetentionDays;
  /** Description shown in the Lambda console. */
  readonly description: string;
  /**
   * X-Ray tracing mode of the function.
   * @default the function's default (pass-through)
   */
  readonly tracing?: lambda.Tracing;
  /**
   * Extra bundling steps, e.g. copying SQL files next to the bundle.
   * @default none
   */
  readonly commandHooks?: nodejs.ICommandHooks;
}

/**
 * A NodejsFunction with the kit's fixed settings: the pinned runtime (`INBOX_RUNTIME`), arm64,
 * local esbuild bundling (`INBOX_BUNDLING`), a
 * log group of its own with a bounded retention, and a role that may write to that log group and
 * nothing else until grants add to it (no AWS managed policy).
 *
 * @example
 * ```ts
 * const fn = inboxFunction(this, 'Cleanup', {
 *   entry: 'functions/inbox-cleanup/index.ts', timeout: Duration.minutes(5), memorySize: 256,
 *   environment: { RETENTION_DAYS: '14' }, logRetention: logs.RetentionDays.ONE_MONTH, description: 'inbox cleanup',
 * });
 * ```
 */
export function inboxFunction(scope: Construct, id: string, props: InboxFunctionProps): nodejs.NodejsFunction {
  const logGroup = new logs.LogGroup(scope, `${id}Logs`, { retention: props.logRetention });
  const role = new iam.Role(scope, `${id}Role`, {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: `Execution role of ${id}: its own log group, plus what the stack grants`,
  });
  logGroup.grantWrite(role);
  return new nodejs.NodejsFunction(scope, id, {
    entry: props.entry,
    handler: props.handler ?? 'handler',
    runtime: INBOX_RUNTIME,
    architecture: lambda.Architecture.ARM_64,
    timeout: props.timeout,
    memorySize: props.memorySize,
    description: props.description,
    tracing: props.tracing,
    logGroup,
    role,
    environment: props.environment,
    bundling: { ...INBOX_BUNDLING, externalModules: [...INBOX_BUNDLING.externalModules], mainFields: [...INBOX_BUNDLING.mainFields], commandHooks: props.commandHooks },
  });
}
