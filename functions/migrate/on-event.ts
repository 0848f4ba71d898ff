import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import type { MigrationReport } from '../inbox/migrations/index.js';

/** What the CDK Provider framework expects back from an onEvent handler. */
export interface MigrationsResourceResponse {
  readonly PhysicalResourceId: string;
  readonly Data?: { readonly Applied: string; readonly AlreadyApplied: string };
}

/**
 * The custom resource's answer to one CloudFormation event. Create and Update apply the pending
 * migrations (the stack changes a property holding the migrations' hash, so a changed folder
 * means an Update); Delete leaves the database alone, because dropping the inbox on a stack
 * change would forget every claim. A throw (a bad migration names its file) makes the framework
 * report FAILED, so the deploy fails and rolls back.
 *
 * @example
 * ```ts
 * await onMigrationsEvent(event, async () => migrate(db, await readMigrations(dir)), 'inbox-migrations:inbox');
 * // { PhysicalResourceId: 'inbox-migrations:inbox', Data: { Applied: '0002_orders.sql', AlreadyApplied: '0001_consumed_message.sql' } }
 * ```
 */
export async function onMigrationsEvent(
  event: Pick<CloudFormationCustomResourceEvent, 'RequestType'> & { PhysicalResourceId?: string },
  run: () => Promise<MigrationReport>,
  physicalResourceId: string,
): Promise<MigrationsResourceResponse> {
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? physicalResourceId };
  const report = await run();
  return {
    PhysicalResourceId: physicalResourceId,
    Data: { Applied: report.applied.join(','), AlreadyApplied: report.alreadyApplied.join(',') },
  };
}
