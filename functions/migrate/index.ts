import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { dataApiDatabaseFromEnv, untilResumed } from '../inbox/data-api/index.js';
import { INBOX_ENV } from '../inbox/index.js';
import { inboxMigrations, MIGRATE_ASSET_FOLDERS, migrationsHashOf, readMigrations, type Migration } from '../inbox/migrations/index.js';
import { deployMigrations } from './deploy-migrations.js';
import { managedRolesFrom } from './managed-roles.js';
import { onMigrationsEvent } from './on-event.js';
import type { MigrationsResourceResponse } from './on-event.js';
import { readRoleCredentials, type ReadSecret } from './role-credentials.js';
import { secretsManagerReader } from './secrets-manager.js';

/**
 * The SQL travels inside the function's asset, copied next to the bundle at bundling time: the
 * kit's migrations and the project's, each in a folder of its own. KIT_MIGRATIONS_DIR and
 * MIGRATIONS_DIR point elsewhere (a test, a local run).
 */
function assetFolder(variable: string, folder: string): string {
  return process.env[variable] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), folder);
}

/** The kit's migrations, then the project's: one ordered run. */
async function bundledMigrations(): Promise<Migration[]> {
  return [
    ...await inboxMigrations(assetFolder('KIT_MIGRATIONS_DIR', MIGRATE_ASSET_FOLDERS.kit)),
    ...await readMigrations(assetFolder('MIGRATIONS_DIR', MIGRATE_ASSET_FOLDERS.project)),
  ];
}

/** What the migrations handler reads besides the database: the roles' secrets. */
export interface MigrationsHandlerDependencies {
  /** Reads a secret's SecretString. */
  readonly readSecret: ReadSecret;
}

/**
 * The onEvent handler of the migrations custom resource (CDK Provider framework), reading secrets
 * with `readSecret`: on every deploy that changes the migrations, the cluster or the roles, it makes
 * the roles of DATABASE_ROLES (each with its twin), applies the kit's and the project's pending
 * migrations over the RDS Data API, grants each role the kit's tables and sets its password from its
 * secret (`deployMigrations`), waiting out an Aurora resume; it leaves alone an Update meant for
 * other migrations, another cluster or other roles than this function's (a rollback). Idempotent:
 * applied migrations are recorded with their checksum and skipped, roles kept, grants and passwords
 * set again. Reads CLUSTER_ARN, SECRET_ARN (the owner's secret), DATABASE_NAME and DATABASE_ROLES.
 *
 * @example
 * ```ts
 * const handler = migrationsHandler({ readSecret: async (arn) => secrets[arn] }); // a test's secrets
 * ```
 */
export function migrationsHandler(dependencies: MigrationsHandlerDependencies) {
  return async (event: CloudFormationCustomResourceEvent, context: Context): Promise<MigrationsResourceResponse> => {
    let migrations: Migration[] | undefined;
    const bundled = async () => (migrations ??= await bundledMigrations());
    const wait = { remainingMs: () => context.getRemainingTimeInMillis() };
    return onMigrationsEvent(
      event,
      {
        bundled: async () => ({
          hash: migrationsHashOf(await bundled()),
          clusterArn: process.env[INBOX_ENV.clusterArn] ?? '',
          databaseName: process.env[INBOX_ENV.databaseName] ?? '',
          roles: process.env[INBOX_ENV.databaseRoles],
        }),
        apply: async () => {
          const run = await bundled();
          const roles = managedRolesFrom(process.env[INBOX_ENV.databaseRoles]);
          // Every secret is read and checked before the database is touched.
          const credentials = await readRoleCredentials(roles, dependencies.readSecret);
          const db = dataApiDatabaseFromEnv();
          try {
            // Each step is safe to run again, so a resume met halfway starts the run over.
            return await untilResumed(() => deployMigrations(db, { migrations: run, roles, credentials }), wait);
          } finally {
            await db.close();
          }
        },
      },
      `inbox-migrations:${process.env[INBOX_ENV.databaseName] ?? 'unknown'}`,
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
