import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { dataApiDatabaseFromEnv, untilResumed } from '../inbox/data-api/index.js';
import { migrate, migrationsHashOf, readMigrations, type Migration } from '../inbox/migrations/index.js';
import { onMigrationsEvent } from './on-event.js';
import type { MigrationsResourceResponse } from './on-event.js';
import { readRoleCredentials, setRolePasswords, type ReadSecret } from './role-passwords.js';
import { ROLE_SECRETS_ENV, roleSecretsFrom } from './role-secrets.js';
import { secretsManagerReader } from './secrets-manager.js';

/**
 * The SQL files travel inside the function's asset, copied next to the bundle at bundling time;
 * MIGRATIONS_DIR points elsewhere (a test, a local run).
 */
function migrationsDir(): string {
  return process.env.MIGRATIONS_DIR ?? path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
}

/** What the migrations handler reads besides the database: the function roles' secrets. */
export interface MigrationsHandlerDependencies {
  /** Reads a secret's SecretString. */
  readonly readSecret: ReadSecret;
}

/**
 * The onEvent handler of the migrations custom resource (CDK Provider framework), reading secrets
 * with `readSecret`: applies the pending migrations over the RDS Data API on every deploy that
 * changes them, the cluster or a role's secret, waiting out an Aurora resume, then gives each
 * function role named in DATABASE_ROLE_SECRETS its secret's password; it leaves alone an Update
 * meant for other migrations or another cluster than this function's (a rollback). Idempotent:
 * applied migrations are recorded with their checksum and skipped, passwords set again. Reads
 * CLUSTER_ARN, SECRET_ARN (the owner's secret), DATABASE_NAME and DATABASE_ROLE_SECRETS.
 *
 * @example
 * ```ts
 * const handler = migrationsHandler({ readSecret: async (arn) => secrets[arn] }); // a test's secrets
 * ```
 */
export function migrationsHandler(dependencies: MigrationsHandlerDependencies) {
  return async (event: CloudFormationCustomResourceEvent, context: Context): Promise<MigrationsResourceResponse> => {
    let migrations: Migration[] | undefined;
    const bundledMigrations = async () => (migrations ??= await readMigrations(migrationsDir()));
    const wait = { remainingMs: () => context.getRemainingTimeInMillis() };
    return onMigrationsEvent(
      event,
      {
        bundled: async () => ({
          hash: migrationsHashOf(await bundledMigrations()),
          clusterArn: process.env.CLUSTER_ARN ?? '',
          databaseName: process.env.DATABASE_NAME ?? '',
          roleSecrets: process.env[ROLE_SECRETS_ENV],
        }),
        apply: async () => {
          const pending = await bundledMigrations();
          // Every secret is read and checked before the database is touched.
          const credentials = await readRoleCredentials(roleSecretsFrom(process.env[ROLE_SECRETS_ENV]), dependencies.readSecret);
          const db = dataApiDatabaseFromEnv();
          try {
            const report = await untilResumed(() => migrate(db, pending), wait);
            const roles = await untilResumed(() => setRolePasswords(db, credentials), wait);
            return { ...report, roles };
          } finally {
            await db.close();
          }
        },
      },
      `inbox-migrations:${process.env.DATABASE_NAME ?? 'unknown'}`,
    );
  };
}

/**
 * The Lambda's handler: `migrationsHandler` reading the role secrets from Secrets Manager.
 *
 * @example
 * ```ts
 * // lib/: new cr.Provider(this, 'MigrationsProvider', { onEventHandler: migrateFn });
 * ```
 */
export const handler = migrationsHandler({ readSecret: secretsManagerReader() });
