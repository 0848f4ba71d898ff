import { createHash } from 'node:crypto';
import pg from 'pg';
import { splitStatements } from '../../functions/inbox/internal.js';
import type { ColumnTypes } from './column-types.js';
import type { Connections } from './connections.js';
import { bindStatement, type BoundStatement } from './parameters.js';
import { cappedBody, executeResponse, type ResultOptions, type StatementOutcome } from './results.js';
import { credentialsFor, type DataApiCredentials, type DataApiSecrets, type DataApiSecretSource } from './secrets.js';
import { badRequest, databaseError, databaseUnavailable, internalError, ServiceError, signInRefused, statementTimeout, validationError } from './service-errors.js';
import type { OpenTransaction, Transactions } from './transactions.js';

/** What the operations share: the server's connections, the open transactions, the type cache, the secrets. */
export interface OperationContext {
  readonly connections: Connections;
  readonly transactions: Transactions;
  readonly types: ColumnTypes;
  /** Secrets by ARN, or where to read them; `undefined`: every call signs in as the server URL's user. */
  readonly secrets: DataApiSecrets | DataApiSecretSource | undefined;
}

/** A request body, already parsed from JSON. */
export type RequestBody = Record<string, unknown>;

/** One restJson1 operation: the parsed request in, the JSON response body out. */
export type Operation = (body: RequestBody, context: OperationContext) => Promise<string>;

const STATEMENT_TIMEOUT = /statement timeout/i;
// The server is shutting down, crashed or starting up (57P01-57P03), or a connection failed (class 08).
const SERVER_GONE = /^(57P0[1-3]|08...)$/;
// A socket that failed or closed under a call, a connection the server refused or whose earlier
// failure left it unusable, or one that a server still starting after a restart did not accept
// within the pool's connect timeout.
const CONNECTION_LOST = /^(ECONNREFUSED|ECONNRESET|EPIPE)$|Connection terminated|is not queryable|timeout exceeded when trying to connect/;

function requiredString(body: RequestBody, member: string): string {
  const value = body[member];
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${member} is required and must be a non-empty string.`);
  return value;
}

function optionalString(body: RequestBody, member: string): string | undefined {
  const value = body[member];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badRequest(`${member} must be a string.`);
  return value;
}

function optionalBoolean(body: RequestBody, member: string): boolean {
  const value = body[member];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw badRequest(`${member} must be a boolean.`);
  return value;
}

function oneOf<T extends string>(value: unknown, member: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw badRequest(`${member} must be one of ${allowed.join(', ')}.`);
  return value as T;
}

/**
 * resourceArn and secretArn: required on every operation; the emulator serves any cluster. Returns
 * the credentials of the secret the call signs in with (none when the emulator has no secrets).
 */
function requireTarget(body: RequestBody, context: OperationContext): Promise<DataApiCredentials | undefined> {
  requiredString(body, 'resourceArn');
  return credentialsFor(context.secrets, requiredString(body, 'secretArn'));
}

/** The SQL of an Execute or BatchExecute: one statement, as the service allows. */
function singleStatement(body: RequestBody): string {
  const sql = requiredString(body, 'sql');
  const statements = splitStatements(sql);
  if (statements.length === 0) throw badRequest('sql holds no statement.');
  if (statements.length > 1) throw validationError('Multistatement aren\'t supported.');
  return sql;
}

function resultOptions(body: RequestBody): ResultOptions {
  const set = body.resultSetOptions;
  if (set !== undefined && set !== null && (typeof set !== 'object' || Array.isArray(set))) throw badRequest('resultSetOptions must be an object.');
  const options = (set ?? {}) as Record<string, unknown>;
  return {
    includeResultMetadata: optionalBoolean(body, 'includeResultMetadata'),
    formatRecordsAs: oneOf(body.formatRecordsAs, 'formatRecordsAs', ['NONE', 'JSON'], 'NONE'),
    longReturnType: oneOf(options.longReturnType, 'resultSetOptions.longReturnType', ['LONG', 'STRING'], 'LONG'),
    decimalReturnType: oneOf(options.decimalReturnType, 'resultSetOptions.decimalReturnType', ['STRING', 'DOUBLE_OR_LONG'], 'STRING'),
  };
}

/**
 * The service's answer for what went wrong: a SQL error as DatabaseErrorException, the statement
 * timeout as StatementTimeoutException, the emulator's own refusals as they are.
 */
export function serviceErrorOf(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  if (error instanceof pg.DatabaseError) {
    if (error.code === '57014' && STATEMENT_TIMEOUT.test(error.message)) return statementTimeout();
    // Class 28 at sign-in: the secret's user or password was refused.
    if (error.severity === 'FATAL' && error.code?.startsWith('28')) return signInRefused(error.message);
    if (SERVER_GONE.test(error.code ?? '')) return databaseUnavailable();
    return databaseError(error);
  }
  if (isConnectionLost(error)) return databaseUnavailable();
  return internalError();
}

function isConnectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return CONNECTION_LOST.test(typeof code === 'string' ? code : '') || CONNECTION_LOST.test(error.message);
}

async function run(client: pg.ClientBase, statement: BoundStatement): Promise<StatementOutcome> {
  // Extended protocol always, as JDBC prepares every statement.
  const config = { text: statement.text, values: statement.values, rowMode: 'array', queryMode: 'extended' } as pg.QueryArrayConfig;
  const result = await client.query(config);
  return { command: result.command, rowCount: result.rowCount, fields: result.fields, rows: result.rows };
}

async function respond(outcome: StatementOutcome, database: string, client: pg.ClientBase, options: ResultOptions, context: OperationContext): Promise<string> {
  const types = await context.types.of(database, client, outcome.fields.map((field) => field.dataTypeID));
  return cappedBody(executeResponse(outcome, types, options));
}

/**
 * Runs `work` on the transaction's connection, one call at a time. A failed statement rolls the
 * transaction back and ends it, as on Aurora: later calls get TransactionNotFoundException.
 */
async function onTransaction<T>(context: OperationContext, id: unknown, work: (tx: OpenTransaction) => Promise<T>): Promise<T> {
  const tx = context.transactions.take(id);
  try {
    return await work(tx);
  } catch (error) {
    if (error instanceof pg.DatabaseError || !(error instanceof ServiceError)) await context.transactions.abort(tx);
    throw error;
  } finally {
    context.transactions.release(tx);
  }
}

/** Autocommit: one statement as its own implicit transaction, on a pooled connection. */
async function onPool<T>(
  context: OperationContext,
  database: string | undefined,
  login: DataApiCredentials | undefined,
  work: (client: pg.PoolClient, database: string) => Promise<T>,
): Promise<T> {
  const client = await context.connections.pool(database, login).connect();
  let broken: Error | undefined;
  try {
    return await work(client, context.connections.databaseName(database));
  } catch (error) {
    if (!(error instanceof pg.DatabaseError) && !(error instanceof ServiceError)) broken = error as Error;
    throw error;
  } finally {
    client.release(broken);
  }
}

const executeStatement: Operation = async (body, context) => {
  const login = await requireTarget(body, context);
  const sql = singleStatement(body);
  const options = resultOptions(body);
  const statement = bindStatement(sql, body.parameters);
  const database = optionalString(body, 'database');
  if (body.transactionId !== undefined && body.transactionId !== null) {
    return onTransaction(context, body.transactionId, async (tx) => {
      const outcome = await run(tx.client, statement);
      return respond(outcome, tx.database, tx.client, options, context);
    });
  }
  return onPool(context, database, login, async (client, name) => respond(await run(client, statement), name, client, options, context));
};

/**
 * A batch's statements on one connection, in order, as JDBC's executeBatch runs them: each text
 * prepared once per connection (named by its hash) and executed for every parameter set.
 */
async function runBatch(client: pg.ClientBase, statements: readonly BoundStatement[]): Promise<void> {
  for (const statement of statements) {
    await client.query({
      name: `batch_${createHash('sha1').update(statement.text).digest('hex')}`,
      text: statement.text, values: statement.values, rowMode: 'array', queryMode: 'extended',
    } as pg.QueryArrayConfig);
  }
}

/**
 * BatchExecuteStatement: one SQL text over its parameter sets (none: the statement once), in one
 * transaction, its own when no transactionId is given (all sets commit or none). Aurora PostgreSQL
 * answers `generatedFields` empty for every set, RETURNING or not: the answer is one empty
 * `updateResults` entry a set, capped at 1 MiB like every response.
 */
const batchExecuteStatement: Operation = async (body, context) => {
  const login = await requireTarget(body, context);
  const sql = singleStatement(body);
  const sets = body.parameterSets ?? [[]];
  if (!Array.isArray(sets)) throw badRequest('parameterSets must be a list of parameter lists.');
  const statements = (sets.length === 0 ? [[]] : sets).map((set: unknown) => bindStatement(sql, set));
  // The answer's size depends on the number of sets alone: one over the cap is refused before any set runs.
  const answer = cappedBody({ updateResults: statements.map(() => ({ generatedFields: [] })) });
  const runAll = async (client: pg.ClientBase) => {
    await runBatch(client, statements);
    return answer;
  };
  if (body.transactionId !== undefined && body.transactionId !== null) {
    return onTransaction(context, body.transactionId, (tx) => runAll(tx.client));
  }
  // Without a transaction the whole batch commits or none of it does.
  return onPool(context, optionalString(body, 'database'), login, async (client) => {
    await client.query('BEGIN');
    try {
      const response = await runAll(client);
      await client.query('COMMIT');
      return response;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
};

const beginTransaction: Operation = async (body, context) => {
  const login = await requireTarget(body, context);
  const database = optionalString(body, 'database');
  // The transaction's statements run on this connection, as the user of the secret that began it.
  const client = await context.connections.client(database, login);
  const transactionId = await context.transactions.begin(context.connections.databaseName(database), client);
  return JSON.stringify({ transactionId });
};

const commitTransaction: Operation = async (body, context) => {
  await requireTarget(body, context);
  const tx = context.transactions.take(requiredString(body, 'transactionId'));
  await context.transactions.finish(tx, 'COMMIT');
  return JSON.stringify({ transactionStatus: 'Transaction Committed' });
};

const rollbackTransaction: Operation = async (body, context) => {
  await requireTarget(body, context);
  const tx = context.transactions.take(requiredString(body, 'transactionId'));
  await context.transactions.finish(tx, 'ROLLBACK');
  return JSON.stringify({ transactionStatus: 'Rollback Complete' });
};

/** The operations by their restJson1 path, with the name `stats()` counts them under. */
export const OPERATIONS: Readonly<Record<string, { name: string; run: Operation }>> = {
  '/Execute': { name: 'ExecuteStatement', run: executeStatement },
  '/BatchExecute': { name: 'BatchExecuteStatement', run: batchExecuteStatement },
  '/BeginTransaction': { name: 'BeginTransaction', run: beginTransaction },
  '/CommitTransaction': { name: 'CommitTransaction', run: commitTransaction },
  '/RollbackTransaction': { name: 'RollbackTransaction', run: rollbackTransaction },
};
