/**
 * The contract between the infrastructure (lib/, at synth time) and the runtime (functions/, in
 * Lambda): every value both sides need, defined once. lib/ may import this module and nothing else
 * of the runtime (eslint.config.js), so it holds plain constants and imports nothing: importing it
 * brings no runtime code, no AWS SDK and no side effect into a synth.
 *
 * @example
 * ```ts
 * environment: { [INBOX_ENV.clusterArn]: cluster.clusterArn, [INBOX_ENV.requireKeyAttribute]: 'true' }
 * ```
 */

/** The environment variables through which the infrastructure configures the runtime. */
export const INBOX_ENV = {
  /** The Aurora cluster's ARN, read by `dataApiDatabaseFromEnv`. */
  clusterArn: 'CLUSTER_ARN',
  /** The ARN of the secret the Data API signs in with, read by `dataApiDatabaseFromEnv`. */
  secretArn: 'SECRET_ARN',
  /** The database on the cluster, read by `dataApiDatabaseFromEnv`. */
  databaseName: 'DATABASE_NAME',
  /** `true`: the default of the `requireKeyAttribute` option (the InboxConsumer's `requireIdempotencyKey`). */
  requireKeyAttribute: 'INBOX_REQUIRE_KEY_ATTRIBUTE',
  /** Days the cleanup keeps a consumed_message row. */
  retentionDays: 'RETENTION_DAYS',
  /** Rows the cleanup deletes per statement. */
  cleanupBatchSize: 'CLEANUP_BATCH_SIZE',
  /** The function role whose secret the role rotation function rotates (alternating with its twin). */
  rotatedRole: 'ROTATED_ROLE',
  /** The name prefix of the short-lived secrets the role rotation's testSecret signs in with. */
  probeSecretPrefix: 'PROBE_SECRET_PREFIX',
  /**
   * The database roles the migrate function manages, as JSON
   * `{ "<role>": { "secretArn": "<ARN>", "access": "consumer" | "cleanup" } }`: it creates each role
   * and its twin, grants it the kit's tables for its `access`, and sets its password from its secret.
   */
  databaseRoles: 'DATABASE_ROLES',
} as const;

/**
 * What a role the migrate function manages may do on the kit's own tables: a consumer claims and
 * rejects messages (SELECT, INSERT on consumed_message), the cleanup deletes old rows.
 */
export const DATABASE_ROLE_ACCESS = {
  consumer: 'consumer',
  cleanup: 'cleanup',
} as const;

/** One of `consumer | cleanup`. */
export type DatabaseRoleAccess = (typeof DATABASE_ROLE_ACCESS)[keyof typeof DATABASE_ROLE_ACCESS];

/**
 * What the kit's own migrations are recorded as in schema_migrations, before their file name
 * (`sqs-inbox/0001_consumed_message.sql`): a project's migrations (`NNNN_name.sql`, no `/`) can
 * never take one of their names, whatever their numbers.
 */
export const KIT_MIGRATION_PREFIX = 'sqs-inbox/';

/**
 * How a migration file is named (four digits, `_`, lower-case letters, digits and `_`, `.sql`); the
 * number orders it. `readMigrations` refuses other `.sql` files, and `InboxDatabase` refuses them at synth.
 */
export const MIGRATION_FILE_NAME = /^(\d{4})_[a-z0-9_]+\.sql$/;

/**
 * Where the migrate function's asset holds the SQL, next to its bundle: the kit's own migrations
 * and the project's. `InboxDatabase` copies them there at bundling time.
 */
export const MIGRATE_ASSET_FOLDERS = { kit: 'kit-migrations', project: 'migrations' } as const;

/**
 * What the twin of a function role adds to the role's name: the second login that a role secret's
 * rotation alternates with (alternating users), a member of the role. The suffix of AWS's
 * alternating-users rotation templates. A role of at most 63 - 6 = 57 characters has one.
 */
export const ROLE_TWIN_SUFFIX = '_clone';

/**
 * A database role the kit manages: 1 to 57 lower-case letters, digits or `_`, not starting with a
 * digit, so that its twin (`<role>_clone`) fits in PostgreSQL's 63 characters. One ending in
 * `ROLE_TWIN_SUFFIX` is a twin, never a role.
 */
export const KIT_ROLE_NAME = /^[a-z_][a-z0-9_]{0,56}$/;

/** What became of one record, SQS or Kafka: each kind is also the name of the metric that counts it. */
export const OutcomeKind = {
  processed: 'processed',
  duplicate: 'duplicate',
  collision: 'collision',
  rejected: 'rejected',
  failed: 'failed',
  skipped: 'skipped',
} as const;

/** One of `processed | duplicate | collision | rejected | failed | skipped`. */
export type OutcomeKind = (typeof OutcomeKind)[keyof typeof OutcomeKind];

/** The metrics a consumer publishes beside its outcome counts. */
export const INBOX_METRICS = {
  /** The processing latency of each attempted record (unit Milliseconds). */
  processingLatency: 'processingLatency',
  /** Records keyed by a fallback a redrive changes (`Outcome.keyFallback`, unit Count). */
  keyFallback: 'keyFallback',
} as const;

/** The metrics the cleanup publishes, one EMF document a run (unit Count). */
export const CLEANUP_METRICS = {
  /** Rows deleted by a run that returned. */
  deleted: 'deleted',
  /** 1 when nothing past the retention was left, else 0 (a failed run included). */
  done: 'done',
} as const;

/**
 * The runtime's time defaults that the infrastructure sizes the function's timeout by: a message
 * is not started with less than `deadlineMarginMs` left, and a claim waits up to `lockTimeoutMs`.
 */
export const TIME_DEFAULTS = { lockTimeoutMs: 5000, deadlineMarginMs: 5000 } as const;

/**
 * Rows the inbox cleanup deletes per statement. The ceiling keeps each DELETE short: a statement
 * holds its row locks until it ends, and the Data API ends any statement at 45 s.
 */
export const CLEANUP_BATCH_SIZE = { min: 1, max: 10_000, default: 1000 } as const;

/** The longest idempotency key the inbox stores; a longer one is rejected (and the producer refuses it). */
export const MAX_KEY_LENGTH = 512;
