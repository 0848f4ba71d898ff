/**
 * The database roles of the reference stack's functions, as migrations/0003_database_roles.sql
 * creates and grants them. The migrate function signs in as the cluster's owner (the master
 * secret); these sign in through secrets of their own.
 */
export const INBOX_DATABASE_ROLES = {
  /** The order worker: SELECT, INSERT on consumed_message, and its example tables. */
  worker: 'inbox_worker',
  /** The cleanup: DELETE on consumed_message (and what its SELECT ... FOR UPDATE needs). */
  cleanup: 'inbox_cleanup',
} as const;

/**
 * The environment variable through which the migrate function learns each role's secret, as JSON
 * `{ "<role>": "<secret ARN>" }`; functions/migrate reads the same name (ROLE_SECRETS_ENV there),
 * and test/infra pins the two together.
 */
export const ROLE_SECRETS_ENV = 'DATABASE_ROLE_SECRETS';
