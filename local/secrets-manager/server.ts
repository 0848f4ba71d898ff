import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { ACCOUNT_ID, settingChecks } from '../setting-checks.js';
import { jsonObjectBody, listenOnLoopback, readBody } from '../loopback-http.js';
import type { OperationContext } from './operation-context.js';
import { OPERATIONS } from './operations.js';
import { RotationRunner, type RotationInvoker, type RotationRun } from './rotation-runner.js';
import { SecretStore } from './secret-store.js';
import { SecretsManagerError, secretsManagerErrorOf, serializationError, unknownOperation } from './secrets-manager-errors.js';

/** Options of `startSecretsManager`. */
export interface StartSecretsManagerOptions {
  /**
   * The port on 127.0.0.1.
   * @default 0 (a free port)
   */
  readonly port?: number;
  /**
   * The account in secret ARNs.
   * @default '123456789012'
   */
  readonly accountId?: string;
  /**
   * The region in secret ARNs.
   * @default 'us-east-1'
   */
  readonly region?: string;
  /**
   * The clock of creation, change, rotation and deletion dates, in milliseconds since the epoch.
   * @default Date.now
   */
  readonly now?: () => number;
  /**
   * How long a DeleteSecret with ForceDeleteWithoutRecovery takes to complete: until then the secret
   * is marked for deletion and its name cannot be used again, as the service deletes asynchronously.
   * @default 0 (at once)
   */
  readonly forcedDeletionMs?: number;
  /**
   * Invokes a rotation function with one step's event, for the rotations RotateSecret starts
   * (for example, the handler itself, in process).
   * @default none: RotateSecret makes the AWSPENDING version and the test invokes the steps
   */
  readonly invokeRotation?: RotationInvoker;
}

/** Calls answered so far. */
export interface SecretsManagerStats {
  /** By operation name. */
  readonly calls: Readonly<Record<string, number>>;
  /** Calls answered with an error, by error name. */
  readonly errors: Readonly<Record<string, number>>;
}

/** A running stand-in. */
export interface RunningSecretsManager {
  /** `http://127.0.0.1:PORT`, for `new SecretsManagerClient({ endpoint })`. */
  readonly endpoint: string;
  readonly region: string;
  readonly accountId: string;
  stats(): SecretsManagerStats;
  /** Every rotation RotateSecret started with `invokeRotation`, once each has ended. */
  rotations(): Promise<RotationRun[]>;
  /** Ends the connections and stops listening (rotations under way run on). */
  close(): Promise<void>;
}

const DEFAULTS = { port: 0, accountId: '123456789012', region: 'us-east-1', now: Date.now, forcedDeletionMs: 0 } as const;
// A secret value is at most 64 KiB; a request carries one, with its JSON around it.
const MAX_REQUEST_BYTES = 256 * 1024;
const TARGET_PREFIX = 'secretsmanager.';

function reply(response: http.ServerResponse, status: number, body: unknown, errorType?: string): void {
  if (response.destroyed) return;
  const text = JSON.stringify(body);
  const headers: http.OutgoingHttpHeaders = {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
  };
  if (errorType !== undefined) headers['x-amzn-errortype'] = errorType;
  response.writeHead(status, headers).end(text);
}

/**
 * Starts a local AWS Secrets Manager on 127.0.0.1, faithful enough that the real
 * `@aws-sdk/client-secrets-manager` (AWS JSON 1.1) and a rotation function behave against it as
 * against the service: secrets with versions and staging labels (one version per label, AWSPREVIOUS
 * following AWSCURRENT), ClientRequestToken idempotency, rotation (RotateSecret's AWSPENDING
 * placeholder, the four steps run through `invokeRotation`), recovery-window and forced deletion,
 * GetRandomPassword, and the service's named errors. Serves CreateSecret, DescribeSecret,
 * DeleteSecret, GetSecretValue, PutSecretValue, UpdateSecretVersionStage, RotateSecret and
 * GetRandomPassword; SigV4, IAM and KMS are not modelled.
 *
 * @example
 * ```ts
 * const secretsManager = await startSecretsManager();
 * const client = localSecretsManagerClient(secretsManager.endpoint);
 * const { ARN } = await client.send(new CreateSecretCommand({ Name: 'worker', SecretString: '{"username":"inbox_worker","password":"..."}' }));
 * await secretsManager.close();
 * ```
 */
export async function startSecretsManager(options: StartSecretsManagerOptions = {}): Promise<RunningSecretsManager> {
  const settings = {
    port: options.port ?? DEFAULTS.port,
    accountId: options.accountId ?? DEFAULTS.accountId,
    region: options.region ?? DEFAULTS.region,
    now: options.now ?? DEFAULTS.now,
    forcedDeletionMs: options.forcedDeletionMs ?? DEFAULTS.forcedDeletionMs,
  };
  const check = settingChecks(settings);
  check.matches('accountId', ACCOUNT_ID.pattern, ACCOUNT_ID.described);
  check.whole('forcedDeletionMs', 0);
  const store = new SecretStore(settings);
  const context: OperationContext = { store, rotations: new RotationRunner(store, options.invokeRotation), forcedDeletionMs: settings.forcedDeletionMs };
  const calls: Record<string, number> = {};
  const errors: Record<string, number> = {};

  const fail = (response: http.ServerResponse, error: SecretsManagerError) => {
    errors[error.type] = (errors[error.type] ?? 0) + 1;
    reply(response, error.status, { __type: error.type, message: error.message }, error.type);
  };

  const server = http.createServer((request, response) => {
    const target = request.headers['x-amz-target'];
    const name = typeof target === 'string' && target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : undefined;
    const operation = request.method === 'POST' && name !== undefined ? OPERATIONS[name] : undefined;
    if (operation === undefined) {
      request.resume();
      fail(response, unknownOperation(String(target ?? `${request.method} ${request.url}`)));
      return;
    }
    calls[name!] = (calls[name!] ?? 0) + 1;
    void (async () => {
      try {
        const text = await readBody(request, MAX_REQUEST_BYTES, () => serializationError(`The request is larger than ${MAX_REQUEST_BYTES} bytes.`));
        reply(response, 200, operation(jsonObjectBody(text, serializationError), context));
      } catch (error) {
        // An error the stand-in did not expect is a bug in it: say so, and answer as the service would.
        if (!(error instanceof SecretsManagerError)) console.error('local Secrets Manager: unexpected error', error);
        fail(response, secretsManagerErrorOf(error));
      }
    })();
  });
  server.keepAliveTimeout = 5_000;
  const endpoint = await listenOnLoopback(server, settings.port);

  return {
    endpoint,
    region: settings.region,
    accountId: settings.accountId,
    stats: () => ({ calls: { ...calls }, errors: { ...errors } }),
    rotations: () => context.rotations.settled(),
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
