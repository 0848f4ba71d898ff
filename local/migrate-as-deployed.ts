import { inboxMigrations, readMigrations, type InboxRole, type MigrationReport } from '../functions/inbox/migrations/index.js';
import { pgDatabase } from '../functions/inbox/pg/index.js';
import { deployMigrations } from '../functions/migrate/deploy-migrations.js';
import { LOCAL_DATA_API_TARGET } from './data-api/client.js';
import type { DataApiCredentials, DataApiSecrets } from './data-api/secrets.js';

/** What `InboxDatabase` is given: your migrations and the roles of your stack. */
export interface LocalDeployment {
  /** The folder of your migrations, as `InboxDatabase`'s `migrations` (relative to the working directory). */
  readonly migrations: string;
  /**
   * Each role of your stack and what it does on the kit's tables: a consumer's `databaseRole` (its
   * construct id in snake case by default), the cleanup's, a relay's. Your migrations grant them your tables.
   */
  readonly roles: Readonly<Record<string, InboxRole['access']>>;
}

/** One role as the deploy left it: its secret, and the server signed in as it. */
export interface DeployedRole {
  /** Its secret in `secrets`: give it as SECRET_ARN (`localDataApiEnvironment`'s third argument). */
  readonly secretArn: string;
  /** The server's URL on the database, signed in as the role (for `pgDatabase`). */
  readonly url: string;
}

/** The database after `migrateAsDeployed`. */
export interface DeployedDatabase extends MigrationReport {
  readonly roles: Readonly<Record<string, DeployedRole>>;
  /**
   * For `startDataApi({ secrets })`: each role's secret, and the owner's (the URL's user) at the ARN
   * `localDataApiEnvironment` and `localDataApiDatabase` sign in with by default.
   */
  readonly secrets: DataApiSecrets;
}

const secretArnOf = (role: string) => `arn:aws:secretsmanager:us-east-1:123456789012:secret:${role}`;
/**
 * A role's password, the same on every run: roles belong to the server, so two test files on one
 * server (or one run after another) set the same one and never sign each other out.
 */
const passwordOf = (role: string) => `local-${role}-password`;

function signedInAs(url: URL, credentials: DataApiCredentials): string {
  const copy = new URL(url);
  copy.username = encodeURIComponent(credentials.username);
  copy.password = encodeURIComponent(credentials.password);
  return copy.toString();
}

/**
 * Your database as `InboxDatabase`'s migrate function leaves it on deploy, signed in as the owner
 * of `databaseUrl`: each role and its twin made, the kit's migrations and yours applied, each role
 * granted the kit's tables for its access and given a password from its secret, by the code the
 * deployed function runs (`deployMigrations`). Start the Data API emulator with the `secrets` it
 * returns and give the handler its role's secret, so the test signs in as the deployed role and a
 * GRANT your migrations lack fails there (`permission denied ...; SQLState: 42501`), not in AWS.
 *
 * @example
 * ```ts
 * const deployed = await migrateAsDeployed(scratch.url, { migrations: 'migrations', roles: { ship_orders: 'consumer' } });
 * const api = await startDataApi({ databaseUrl: scratch.url, secrets: deployed.secrets });
 * Object.assign(process.env, localDataApiEnvironment(api.endpoint, scratch.name, deployed.roles.ship_orders!.secretArn));
 * ```
 */
export async function migrateAsDeployed(databaseUrl: string, deployment: LocalDeployment): Promise<DeployedDatabase> {
  const roles = Object.entries(deployment.roles).map(([role, access]) => ({ role, access, secretArn: secretArnOf(role), username: role, password: passwordOf(role) }));
  const migrations = [...await inboxMigrations(), ...await readMigrations(deployment.migrations)];
  const owner = pgDatabase({ connectionString: databaseUrl });
  let report: MigrationReport;
  try {
    report = await deployMigrations(owner, { migrations, roles, credentials: roles });
  } finally {
    await owner.close();
  }
  const url = new URL(databaseUrl);
  const secrets: Record<string, DataApiCredentials> = {
    [LOCAL_DATA_API_TARGET.secretArn]: { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
  };
  const deployed: Record<string, DeployedRole> = {};
  for (const { role, secretArn, username, password } of roles) {
    secrets[secretArn] = { username, password };
    deployed[role] = { secretArn, url: signedInAs(url, { username, password }) };
  }
  return { applied: report.applied, alreadyApplied: report.alreadyApplied, roles: deployed, secrets };
}
