import { ExecuteStatementCommand, type RDSDataClient } from '@aws-sdk/client-rds-data';
import { DescribeSecretCommand, GetSecretValueCommand, RotateSecretCommand } from '@aws-sdk/client-secrets-manager';
import pg from 'pg';
import { setRolePassword } from '../../functions/database-roles/index.js';
import { dataApiDatabase } from '../../functions/inbox/data-api/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import type { InboxLogger } from '../../functions/inbox/index.js';
import { rotationHandler } from '../../functions/role-rotation/index.js';
import { LOCAL_DATA_API_TARGET, localDataApiClient, startDataApi, type RunningDataApi } from '../../local/data-api/index.js';
import { secretsManagerSource, type RotationInvocation, type StartSecretsManagerOptions } from '../../local/secrets-manager/index.js';
import type { FreshDatabase } from './database.js';
import { startTestSecretsManager, type TestSecretsManager } from './secrets-manager.js';
import { lambdaContext } from './sqs-events.js';

/** The rotation function's ARN, as the rotation schedule names it. */
export const ROTATION_LAMBDA_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:role-rotation';

/** What the rotation function logged, for checks that no password is in it. */
export interface LoggedLine {
  readonly level: string;
  readonly message: string;
  readonly attributes: readonly Record<string, unknown>[];
}

/**
 * The AWS of a rotation test on one PostgreSQL server: the Secrets Manager stand-in, the Data API
 * emulator signing each call in with its secret's AWSCURRENT version from that stand-in, the owner's
 * secret, and the rotation function's handler on both, for the role `order_worker`.
 */
export interface RotationWorld {
  readonly secrets: TestSecretsManager;
  readonly api: RunningDataApi;
  readonly rdsData: RDSDataClient;
  readonly database: string;
  readonly ownerSecretArn: string;
  readonly logged: LoggedLine[];
  /** Invokes the rotation function as Secrets Manager does. */
  step(step: RotationInvocation['Step'] | string, secretId: string, token: string): Promise<void>;
  /** A new secret of `order_worker` whose password the role has now, as a deploy leaves it. */
  workerSecret(): Promise<{ arn: string; password: string }>;
  /** Starts a rotation (RotateSecret): the token of its AWSPENDING version. */
  rotate(secretId: string): Promise<string>;
  /** The user a Data API call signed in with `secretArn` runs as. */
  whoAmI(secretArn: string): Promise<string | undefined>;
  /** Whether `username` and `password` sign in to the server on a new connection. */
  signsIn(username: string, password: string): Promise<boolean>;
  /** `{ username, password }` of a version of a secret. */
  credentials(secretId: string, select?: { VersionStage?: string; VersionId?: string }): Promise<{ username: string; password: string }>;
  /** DescribeSecret's VersionIdsToStages. */
  stages(secretId: string): Promise<Record<string, string[]>>;
  close(): Promise<void>;
}

/** Options of `rotationWorld`. */
export interface RotationWorldOptions {
  /**
   * Whether RotateSecret runs the four steps itself (the stand-in invokes the handler).
   * @default false: the test invokes each step
   */
  readonly automatic?: boolean;
  /**
   * Runs before each step Secrets Manager invokes, when `automatic`: what the functions do meanwhile.
   * @default nothing
   */
  readonly beforeStep?: (event: RotationInvocation) => Promise<void>;
  /**
   * The stand-in's clock and how long its forced deletions take.
   * @default the wall clock, deletions at once
   */
  readonly secretsManager?: Pick<StartSecretsManagerOptions, 'now' | 'forcedDeletionMs'>;
}

function capturingLogger(lines: LoggedLine[]): InboxLogger {
  const log = (level: string) => (message: string, ...attributes: Record<string, unknown>[]) => {
    lines.push({ level, message, attributes });
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/** Starts the stand-in and the emulator on `target`'s server, with the owner's secret from `target`'s URL. */
export async function rotationWorld(target: FreshDatabase, options: RotationWorldOptions = {}): Promise<RotationWorld> {
  const logged: LoggedLine[] = [];
  const secrets = await startTestSecretsManager({
    ...options.secretsManager,
    ...(options.automatic ? {
      invokeRotation: async (_functionArn: string, event: RotationInvocation) => {
        await options.beforeStep?.(event);
        // Called only once RotateSecret runs, after the handler below exists.
        await handler(event, lambdaContext(120_000));
      },
    } : {}),
  });
  const api = await startDataApi({ databaseUrl: target.url, secrets: secretsManagerSource(secrets.secretsManager.endpoint) });
  const rdsData = localDataApiClient(api.endpoint);
  const url = new URL(target.url);
  const database = decodeURIComponent(url.pathname.slice(1));
  const ownerSecretArn = await secrets.createSecret('owner', { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) });
  const handler = rotationHandler({
    secretsManager: secrets.client,
    rdsData,
    logger: capturingLogger(logged),
    env: {
      ROTATED_ROLE: 'order_worker',
      PROBE_SECRET_PREFIX: 'sqs-inbox/rotation-probe/test/',
      CLUSTER_ARN: LOCAL_DATA_API_TARGET.resourceArn,
      SECRET_ARN: ownerSecretArn,
      DATABASE_NAME: database,
    },
  });
  const credentials: RotationWorld['credentials'] = async (secretId, select = {}) =>
    JSON.parse((await secrets.client.send(new GetSecretValueCommand({ SecretId: secretId, ...select }))).SecretString!) as { username: string; password: string };
  return {
    secrets, api, rdsData, database, ownerSecretArn, logged, credentials,
    step: (step, secretId, token) => handler({ Step: step, SecretId: secretId, ClientRequestToken: token, RotationToken: 'rotation-token' }, lambdaContext(120_000)),
    workerSecret: async () => {
      const password = `p0-${Math.random().toString(36).slice(2)}-${Date.now()}`;
      const arn = await secrets.createSecret('worker', { username: 'order_worker', password, engine: 'postgres', dbname: database });
      await setRolePassword(pgDatabase({ pool: target.pool }), 'order_worker', password);
      return { arn, password };
    },
    rotate: async (secretId) => {
      const { VersionId } = await secrets.client.send(new RotateSecretCommand({ SecretId: secretId, RotationLambdaARN: ROTATION_LAMBDA_ARN, RotationRules: { AutomaticallyAfterDays: 30 } }));
      return VersionId!;
    },
    whoAmI: async (secretArn) => {
      const { records } = await rdsData.send(new ExecuteStatementCommand({ resourceArn: LOCAL_DATA_API_TARGET.resourceArn, secretArn, database, sql: 'SELECT current_user' }));
      return records?.[0]?.[0]?.stringValue;
    },
    signsIn: async (username, password) => {
      const server = new URL(target.url);
      server.username = encodeURIComponent(username);
      server.password = encodeURIComponent(password);
      const client = new pg.Client({ connectionString: server.toString() });
      try {
        await client.connect();
        return true;
      } catch (error) {
        // 28P01: a wrong password; 28000: a role that may not log in.
        if (/^28/.test(String((error as { code?: string }).code))) return false;
        throw error;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    stages: async (secretId) => (await secrets.client.send(new DescribeSecretCommand({ SecretId: secretId }))).VersionIdsToStages ?? {},
    close: async () => {
      rdsData.destroy();
      await api.close();
      await secrets.close();
    },
  };
}

/** The kit's Data API driver signed in with `secretArn`, as a function of the stack signs in. */
export function signedInWith(world: RotationWorld, secretArn: string) {
  return dataApiDatabase({ resourceArn: LOCAL_DATA_API_TARGET.resourceArn, secretArn, database: world.database, client: world.rdsData });
}
