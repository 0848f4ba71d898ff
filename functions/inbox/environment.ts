/**
 * The names of the environment variables through which the infrastructure (lib/, at synth time)
 * configures the runtime (functions/, in Lambda). Both sides need the same names, and lib/ may not
 * import runtime code, so this module holds plain constants, imports nothing, and is one of the few
 * runtime files eslint.config.js lets lib/ import.
 *
 * @example
 * ```ts
 * environment: { [INBOX_ENV.clusterArn]: cluster.clusterArn, [INBOX_ENV.requireKeyAttribute]: 'true' }
 * ```
 */
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
} as const;
