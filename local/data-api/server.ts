import http from 'node:http';
import { ColumnTypes } from './column-types.js';
import { LocalConfigError } from '../errors.js';
import { jsonObjectBody, listenOnLoopback, readBody } from '../loopback-http.js';
import { settingChecks } from '../setting-checks.js';
import { Connections } from './connections.js';
import { Faults, type Latency } from './faults.js';
import { OPERATIONS, serviceErrorOf, type OperationContext } from './operations.js';
import type { DataApiSecrets, DataApiSecretSource } from './secrets.js';
import { badRequest, ServiceError, unknownOperation } from './service-errors.js';
import { Transactions } from './transactions.js';
import { withDefaults } from '../../functions/inbox/internal.js';

/** Options of `startDataApi`. */
export interface StartDataApiOptions {
  /** The PostgreSQL server to serve, for example `postgres://postgres@127.0.0.1:5432/app`; its database is the default one. */
  readonly databaseUrl: string;
  /**
   * The port on 127.0.0.1.
   * @default 0 (a free port)
   */
  readonly port?: number;
  /**
   * A transaction without a call for this long is rolled back.
   * @default 180000 (3 minutes, as the service)
   */
  readonly idleTimeoutMs?: number;
  /**
   * A statement running longer is cancelled and answered with StatementTimeoutException.
   * @default 45000 (as the service)
   */
  readonly statementTimeoutMs?: number;
  /**
   * Latency added to every call: milliseconds, or `[min, max]` for a random one.
   * @default 0
   */
  readonly latencyMs?: Latency;
  /**
   * Secrets by ARN, as Secrets Manager would hand them to the Data API, or a source that reads
   * them from Secrets Manager (`secretsManagerSource(endpoint)` for the local stand-in: each
   * secret's AWSCURRENT version). Given, each call signs in as the `username` and `password` of the
   * secret its `secretArn` names, so a database role's privileges hold as on Aurora; a secret not
   * found gets SecretsErrorException, a password the server refuses BadRequestException. Read on
   * every call: change an entry's password, or rotate the secret, and the next call signs in with
   * the new one (connections signed in before stay open, as on a server).
   * @default none: every call signs in as the user of `databaseUrl`, whatever secret it names
   */
  readonly secrets?: DataApiSecrets | DataApiSecretSource;
  /**
   * Transactions open at once on a database (a connection each); a BeginTransaction beyond them is
   * refused at once with ServiceUnavailableError, which the SDK retries.
   * @default 100
   */
  readonly maxTransactions?: number;
}

/** Calls answered so far, by operation name (ExecuteStatement, BeginTransaction, ...). */
export interface DataApiStats {
  readonly calls: Readonly<Record<string, number>>;
  /** Every call, answered with an error or not. */
  readonly total: number;
  /** Calls answered with an error, by error name. */
  readonly errors: Readonly<Record<string, number>>;
  /** Transactions open now. */
  readonly openTransactions: number;
}

/** A running emulator. */
export interface RunningDataApi {
  /** `http://127.0.0.1:PORT`, for `new RDSDataClient({ endpoint })`. */
  readonly endpoint: string;
  /** Answers every call with DatabaseResumingException for `ms` milliseconds, as a paused Aurora Serverless does. */
  pause(ms: number): void;
  /** Replaces the latency added to each call. */
  setLatency(latency: Latency): void;
  /**
   * Replaces `idleTimeoutMs`. Each open transaction keeps the idle clock it has run since its last
   * call, so one idle for `ms` or longer is rolled back now: a test can hold an abandoned
   * transaction until it has seen what it waits for, then let the timeout end it.
   */
  setIdleTimeout(ms: number): void;
  /** The calls answered since the start or the last `resetStats()`. */
  stats(): DataApiStats;
  resetStats(): void;
  /** Rolls back open transactions, ends the connections and stops listening. */
  close(): Promise<void>;
}

const DEFAULTS = { port: 0, idleTimeoutMs: 180_000, statementTimeoutMs: 45_000, latencyMs: 0, maxTransactions: 100 } as const;
// The service takes requests of up to 4 MiB.
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

function send(response: http.ServerResponse, status: number, body: string, errorType?: string): void {
  const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  if (errorType !== undefined) headers['x-amzn-errortype'] = errorType;
  response.writeHead(status, headers).end(body);
}

/**
 * Starts a local RDS Data API on 127.0.0.1 in front of a PostgreSQL server, faithful enough that
 * the real `@aws-sdk/client-rds-data` behaves against it as against Aurora Serverless v2: the five
 * restJson1 operations, typed errors, `:name` parameters bound as Aurora binds them, one connection
 * per transaction with the idle and statement timeouts, the 1 MiB response cap, and, when given
 * `secrets`, each call signed in as its secret's user. SigV4 and IAM are not checked.
 *
 * @example
 * ```ts
 * const api = await startDataApi({ databaseUrl: 'postgres://postgres@127.0.0.1:5432/app', latencyMs: 10 });
 * const client = new RDSDataClient({ endpoint: api.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
 * const db = dataApiDatabase({ resourceArn: 'arn:aws:rds:us-east-1:123456789012:cluster:local', secretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:local', database: 'app', client });
 * api.pause(2000); // the next 2 s of calls get DatabaseResumingException
 * api.setIdleTimeout(500); // transactions idle for 500 ms or more are rolled back now
 * await api.close();
 * ```
 */
export async function startDataApi(options: StartDataApiOptions): Promise<RunningDataApi> {
  const settings = checkedSettings(options);
  const connections = new Connections(settings.databaseUrl, settings.statementTimeoutMs, settings.maxTransactions);
  const transactions = new Transactions(settings.idleTimeoutMs);
  const context: OperationContext = { connections, transactions, types: new ColumnTypes(), secrets: settings.secrets };
  const faults = new Faults(settings.latencyMs);
  const counts: DataApiCounts = { calls: {}, errors: {}, total: 0 };
  const server = http.createServer((request, response) => answer({ counts, context, faults }, request, response));
  server.keepAliveTimeout = 5_000;

  const endpoint = await listenOnLoopback(server, settings.port);

  return {
    endpoint,
    pause: (ms) => faults.pause(ms),
    setLatency: (latency) => faults.setLatency(latency),
    setIdleTimeout: (ms) => {
      settingChecks({ idleTimeoutMs: ms }).whole('idleTimeoutMs', 1);
      transactions.setIdleTimeout(ms);
    },
    stats: () => ({ calls: { ...counts.calls }, total: counts.total, errors: { ...counts.errors }, openTransactions: transactions.size }),
    resetStats: () => {
      counts.calls = {};
      counts.errors = {};
      counts.total = 0;
    },
    async close(): Promise<void> {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await transactions.closeAll();
      await connections.close();
    },
  };
}

/** The options with their defaults, checked. */
function checkedSettings(options: StartDataApiOptions) {
  const settings = withDefaults(DEFAULTS, options);
  if (typeof settings.databaseUrl !== 'string' || settings.databaseUrl === '') throw new LocalConfigError('startDataApi needs a databaseUrl: the PostgreSQL server (and database) it stands in front of.');
  const check = settingChecks(settings);
  check.whole('maxTransactions', 1);
  check.whole('statementTimeoutMs', 1);
  check.whole('idleTimeoutMs', 1);
  return settings;
}

/** Calls answered since the start or the last `resetStats`: by operation, errors by type, and every request. */
interface DataApiCounts {
  calls: Record<string, number>;
  errors: Record<string, number>;
  total: number;
}

/** Answers one request: its operation found by path, run on the JSON body after the faults' latency or pause. */
function answer(state: { counts: DataApiCounts; context: OperationContext; faults: Faults }, request: http.IncomingMessage, response: http.ServerResponse): void {
  const { counts, context, faults } = state;
  const fail = (error: ServiceError) => {
    counts.errors[error.type] = (counts.errors[error.type] ?? 0) + 1;
    send(response, error.status, JSON.stringify({ message: error.message, ...error.extra }), error.type);
  };
  const path = (request.url ?? '/').split('?')[0] ?? '/';
  const operation = request.method === 'POST' ? OPERATIONS[path] : undefined;
  counts.total += 1;
  if (operation === undefined) {
    request.resume();
    fail(unknownOperation(`${request.method ?? ''} ${path}`));
    return;
  }
  counts.calls[operation.name] = (counts.calls[operation.name] ?? 0) + 1;
  void (async () => {
    try {
      const body = jsonObjectBody(await readBody(request, MAX_REQUEST_BYTES, () => badRequest('Request is larger than 4 MiB.')), badRequest);
      await faults.beforeCall();
      send(response, 200, await operation.run(body, context));
    } catch (error) {
      const refusal = serviceErrorOf(error);
      // An error the emulator did not expect is a bug in it: say so, and answer as the service would.
      if (!(error instanceof ServiceError) && refusal.type === 'InternalServerErrorException') console.error('local Data API: unexpected error', error);
      fail(refusal);
    }
  })();
}
