import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import type { MigrationReport } from '../inbox/migrations/index.js';

/** What the CDK Provider framework expects back from an onEvent handler. */
export interface MigrationsResourceResponse {
  readonly PhysicalResourceId: string;
  /**
   * `Skipped` says why an Update was left alone; absent when the migrations ran. `Roles` names the
   * roles whose password was set (never a password); absent when the function manages none.
   */
  readonly Data?: { readonly Applied: string; readonly AlreadyApplied: string; readonly Skipped?: string; readonly Roles?: string };
}

/**
 * What the function was deployed with: the hash of the migrations it bundles, the database its
 * environment points at, and the roles it manages. The stack puts the same values on the custom
 * resource.
 */
export interface DeployedMigrations {
  readonly hash: string;
  readonly clusterArn: string;
  readonly databaseName: string;
  /** The DATABASE_ROLES JSON; absent for a stack without roles of the kit's. */
  readonly roles?: string;
}

/** What a run did: the migrations, and the roles whose password it set. */
export interface MigrationsApplied extends MigrationReport {
  /** @default none */
  readonly roles?: readonly string[];
}

/** How `onMigrationsEvent` learns what it was deployed with and applies the migrations. */
export interface MigrationsRun {
  /** Reads the bundled migrations' hash and the target; not called on Delete. */
  readonly bundled: () => Promise<DeployedMigrations>;
  /** Makes the roles, applies the pending migrations, grants the roles and sets their passwords. */
  readonly apply: () => Promise<MigrationsApplied>;
}

type MigrationsEvent = Pick<CloudFormationCustomResourceEvent, 'RequestType' | 'ResourceProperties'> & { PhysicalResourceId?: string };

/** The resource properties the stack sets, by the field of `DeployedMigrations` they must equal. */
const PROPERTIES = { hash: 'MigrationsHash', clusterArn: 'ClusterArn', databaseName: 'DatabaseName', roles: 'Roles' } as const;

/** Why an Update is not for this function, or `undefined` when it is. */
function foreignUpdate(event: MigrationsEvent, deployed: DeployedMigrations): string | undefined {
  const differing = (Object.keys(PROPERTIES) as (keyof DeployedMigrations)[])
    .filter((field) => event.ResourceProperties?.[PROPERTIES[field]] !== deployed[field])
    .map((field) => `${PROPERTIES[field]} ${JSON.stringify(event.ResourceProperties?.[PROPERTIES[field]])} (this function has ${JSON.stringify(deployed[field])})`);
  if (differing.length === 0) return undefined;
  return `Update left alone: ${differing.join(', ')}. The template is not the one this function was deployed with `
    + '(a rollback to an older template, or a function not yet updated), so its migrations are not applied.';
}

/**
 * The custom resource's answer to one CloudFormation event. Create makes the roles, applies the
 * pending migrations and sets the roles' passwords. Update does so when the event's properties
 * (MigrationsHash, ClusterArn, DatabaseName, Roles) are the function's own, which is the case
 * when a deploy changed the migrations, replaced the cluster (a new cluster gets every migration)
 * or added a consumer or changed a role's secret; an Update for any other template, such as the
 * rollback of a failed deploy, which runs the newer function with the older properties, is
 * answered without touching the database. Delete leaves the database alone, because dropping the
 * inbox on a stack change would forget every claim. A throw (a bad migration names its file) makes
 * the framework report FAILED, so the deploy fails and rolls back.
 *
 * @example
 * ```ts
 * await onMigrationsEvent(event, { bundled, apply: async () => migrate(db, migrations) }, 'inbox-migrations:inbox');
 * // { PhysicalResourceId: 'inbox-migrations:inbox', Data: { Applied: '0002_orders.sql', AlreadyApplied: 'sqs-inbox/0001_consumed_message.sql' } }
 * ```
 */
export async function onMigrationsEvent(event: MigrationsEvent, run: MigrationsRun, physicalResourceId: string): Promise<MigrationsResourceResponse> {
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? physicalResourceId };
  if (event.RequestType === 'Update') {
    const skipped = foreignUpdate(event, await run.bundled());
    if (skipped !== undefined) {
      return { PhysicalResourceId: event.PhysicalResourceId ?? physicalResourceId, Data: { Applied: '', AlreadyApplied: '', Skipped: skipped } };
    }
  }
  const report = await run.apply();
  const roles = report.roles ?? [];
  return {
    PhysicalResourceId: physicalResourceId,
    Data: { Applied: report.applied.join(','), AlreadyApplied: report.alreadyApplied.join(','), ...(roles.length > 0 ? { Roles: roles.join(',') } : {}) },
  };
}
