import { CustomResource, Duration, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { INBOX_ENV, MIGRATE_ASSET_FOLDERS } from '../../functions/inbox/contract.js';
import { grantDataApiCalls } from '../data-api-access.js';
import { inboxFunction } from '../inbox-function.js';
import { kitEntry } from '../kit-code.js';
import { KIT_MIGRATIONS_DIR, migrationsHash, sqlFiles } from './migration-folders.js';

/** What the migrations resource runs, and where. */
export interface MigrationsResourceProps {
  readonly cluster: rds.IDatabaseCluster;
  readonly ownerSecret: secretsmanager.ISecret;
  readonly databaseName: string;
  /** The project's migrations folder, if any. */
  readonly projectDir: string | undefined;
  /** DATABASE_ROLES: the roles the function manages, as JSON (a lazy value: consumers attach later). */
  readonly roles: string;
  readonly logRetention: logs.RetentionDays;
}

/** The copy of a folder's migrations into the asset, next to the bundle: none when it has no file (a glob without a match fails). */
function copyInto(dir: string, outputDir: string, folder: string): string[] {
  const target = `${outputDir}/${folder}`;
  return [`mkdir -p "${target}"`, ...(sqlFiles(dir).length > 0 ? [`cp "${dir}"/*.sql "${target}/"`] : [])];
}

/**
 * The migrate function and the custom resource that runs it (CDK Provider framework) whenever the
 * migrations, the cluster, the database or the roles change: the kit's migrations and the project's
 * travel in the function's asset, and the resource carries their hash, the target and the roles
 * (DATABASE_ROLES), the same values the function's environment holds, so a rollback (the older
 * values sent to the newer function) leaves the database alone. Nothing happens on Delete. The
 * function alone signs in as the owner, and it may read the role secrets to set the roles'
 * passwords (`grantRoleSecret`).
 *
 * @example
 * ```ts
 * const migrations = new MigrationsResource(this, 'Migrations', { cluster, ownerSecret, databaseName, projectDir, roles, logRetention });
 * worker.node.addDependency(migrations.resource);
 * ```
 */
export class MigrationsResource extends Construct {
  /** The migrate function (the custom resource's onEvent handler). */
  public readonly migrateFunction: lambda.Function;
  /** The custom resource: whatever needs the tables or the roles depends on it. */
  public readonly resource: CustomResource;

  public constructor(scope: Construct, id: string, props: MigrationsResourceProps) {
    super(scope, id);
    const environment = {
      [INBOX_ENV.clusterArn]: props.cluster.clusterArn,
      [INBOX_ENV.secretArn]: props.ownerSecret.secretArn,
      [INBOX_ENV.databaseName]: props.databaseName,
      [INBOX_ENV.databaseRoles]: props.roles,
    };
    this.migrateFunction = inboxFunction(this, 'Function', {
      entry: kitEntry('functions/migrate/index'),
      timeout: Duration.minutes(5),
      memorySize: 256,
      environment,
      logRetention: props.logRetention,
      description: 'Applies the inbox migrations over the Data API (custom resource)',
      commandHooks: {
        beforeBundling: () => [],
        beforeInstall: () => [],
        // The SQL goes into the asset next to index.mjs, where the handler looks for it.
        afterBundling: (_inputDir: string, outputDir: string) => [
          ...copyInto(KIT_MIGRATIONS_DIR, outputDir, MIGRATE_ASSET_FOLDERS.kit),
          ...(props.projectDir === undefined ? [`mkdir -p "${outputDir}/${MIGRATE_ASSET_FOLDERS.project}"`] : copyInto(props.projectDir, outputDir, MIGRATE_ASSET_FOLDERS.project)),
        ],
      },
    });
    // The Data API calls the driver makes (no BatchExecuteStatement) and the owner's secret.
    grantDataApiCalls(props.cluster, this.migrateFunction);
    props.ownerSecret.grantRead(this.migrateFunction);

    const providerLogs = new logs.LogGroup(this, 'ProviderLogs', { retention: props.logRetention });
    const providerRole = new iam.Role(this, 'ProviderRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Custom resource framework of the inbox migrations: its log group and invoking the migrate function',
    });
    providerLogs.grantWrite(providerRole);
    const provider = new cr.Provider(this, 'Provider', { onEventHandler: this.migrateFunction, logGroup: providerLogs, frameworkOnEventRole: providerRole });
    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::InboxMigrations',
      // Any change of these is an Update, which the function acts on only when they are its own:
      // new migrations, a new cluster or database (which then gets every migration), or new roles
      // or role secrets. A rollback sends the older values to the newer function, which leaves the
      // database alone.
      properties: {
        MigrationsHash: migrationsHash(props.projectDir),
        ClusterArn: environment[INBOX_ENV.clusterArn],
        DatabaseName: environment[INBOX_ENV.databaseName],
        Roles: environment[INBOX_ENV.databaseRoles],
      },
    });
    // The writer instance, not only the cluster, must be up before the Data API answers.
    this.resource.node.addDependency(props.cluster);

    const migrateLogicalId = Stack.of(this).getLogicalId(this.migrateFunction.node.defaultChild as lambda.CfnFunction);
    Validations.of(providerRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${migrateLogicalId}.Arn>:*]`,
      reason: "The CDK Provider framework grants itself lambda:InvokeFunction on the migrate function's ARN and its qualified "
        + 'ARNs (versions and aliases): the wildcard covers only that one function.',
    });
  }

  /**
   * Lets the migrate function read a role's secret, to set the role's password from it.
   *
   * @example
   * ```ts
   * migrations.grantRoleSecret(workerSecret);
   * ```
   */
  public grantRoleSecret(secret: secretsmanager.ISecret): void {
    secret.grantRead(this.migrateFunction);
  }
}
