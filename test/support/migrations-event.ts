import { randomUUID } from 'node:crypto';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';

/** The properties InboxDatabase gives its migrations custom resource (besides the ServiceToken). */
export interface MigrationsProperties {
  readonly MigrationsHash: string;
  readonly ClusterArn: string;
  readonly DatabaseName: string;
  /** The DATABASE_ROLES JSON of the migrate function; absent for a database without roles. */
  readonly Roles?: string;
}

/** Where an event goes and what it replaces. */
export interface MigrationsEventOptions {
  /** The resource's id, for Update and Delete. */
  readonly physicalResourceId?: string;
  /** What an Update replaces. @default `properties` with another MigrationsHash */
  readonly oldProperties?: MigrationsProperties;
}

/**
 * A CloudFormation event for the migrations custom resource, as the Provider framework hands it to
 * the migrate function's onEvent handler.
 *
 * @example
 * ```ts
 * await handler(migrationsEvent('Update', properties, { physicalResourceId: 'inbox-migrations:inbox' }), lambdaContext(300_000));
 * ```
 */
export function migrationsEvent(
  requestType: 'Create' | 'Update' | 'Delete', properties: MigrationsProperties, options: MigrationsEventOptions = {},
): CloudFormationCustomResourceEvent {
  const common = {
    ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:framework',
    ResponseURL: 'https://cloudformation-custom-resource-response.example/',
    StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/SqsInbox-dev/1',
    RequestId: randomUUID(),
    LogicalResourceId: 'Migrations',
    ResourceType: 'Custom::InboxMigrations',
    ResourceProperties: { ServiceToken: 'token', ...properties },
  };
  if (requestType === 'Create') return { ...common, RequestType: 'Create' };
  const physicalResourceId = options.physicalResourceId!;
  if (requestType === 'Delete') return { ...common, RequestType: 'Delete', PhysicalResourceId: physicalResourceId };
  return {
    ...common, RequestType: 'Update', PhysicalResourceId: physicalResourceId,
    OldResourceProperties: { ServiceToken: 'token', ...(options.oldProperties ?? { ...properties, MigrationsHash: 'old' }) },
  };
}
