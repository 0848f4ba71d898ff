import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { dataApiDatabaseFromEnv, untilResumed } from '../inbox/data-api/index.js';
import { migrate, migrationsHashOf, readMigrations, type Migration } from '../inbox/migrations/index.js';
import { onMigrationsEvent } from './on-event.js';
import type { MigrationsResourceResponse } from './on-event.js';

/**
 * The SQL files travel inside the function's asset, copied next to the bundle at bundling time;
 * MIGRATIONS_DIR points elsewhere (a test, a local run).
 */
function migrationsDir(): string {
  return process.env.MIGRATIONS_DIR ?? path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
}

/**
 * The onEvent handler of the migrations custom resource (CDK Provider framework): applies the
 * pending migrations over the RDS Data API on every deploy that changes them or the cluster,
 * waiting out an Aurora resume, and leaves alone an Update meant for other migrations or another
 * cluster than this function's (a rollback). Idempotent: applied migrations are recorded with
 * their checksum and skipped. Reads CLUSTER_ARN, SECRET_ARN and DATABASE_NAME.
 *
 * @example
 * ```ts
 * // lib/: new cr.Provider(this, 'MigrationsProvider', { onEventHandler: migrateFn });
 * ```
 */
export async function handler(event: CloudFormationCustomResourceEvent, context: Context): Promise<MigrationsResourceResponse> {
  let migrations: Migration[] | undefined;
  const bundledMigrations = async () => (migrations ??= await readMigrations(migrationsDir()));
  return onMigrationsEvent(
    event,
    {
      bundled: async () => ({
        hash: migrationsHashOf(await bundledMigrations()),
        clusterArn: process.env.CLUSTER_ARN ?? '',
        databaseName: process.env.DATABASE_NAME ?? '',
      }),
      apply: async () => {
        const pending = await bundledMigrations();
        const db = dataApiDatabaseFromEnv();
        try {
          return await untilResumed(() => migrate(db, pending), { remainingMs: () => context.getRemainingTimeInMillis() });
        } finally {
          await db.close();
        }
      },
    },
    `inbox-migrations:${process.env.DATABASE_NAME ?? 'unknown'}`,
  );
}
