import { App, Stack } from 'aws-cdk-lib';
import * as rds from 'aws-cdk-lib/aws-rds';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { InboxDatabase } from '../../lib/database/inbox-database.js';
import type { InboxDatabaseProps } from '../../lib/database/inbox-database-props.js';

/** A stack of an unbundled app (these tests judge templates), in an account and region. */
export function bareStack(id = 'DatabaseTest'): Stack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return new Stack(app, id, { env: { account: '123456789012', region: 'eu-west-1' } });
}

/** A cluster imported by its identifier, and its owner's secret by ARN: nothing of it can be read at synth. */
export function importedCluster(stack: Stack, id = 'Imported'): { cluster: rds.IDatabaseCluster; ownerSecret: secretsmanager.ISecret } {
  return {
    cluster: rds.DatabaseCluster.fromDatabaseClusterAttributes(stack, id, { clusterIdentifier: `${id.toLowerCase()}-db` }),
    ownerSecret: secretsmanager.Secret.fromSecretCompleteArn(stack, `${id}Owner`, `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${id.toLowerCase()}-owner-AbCdEf`),
  };
}

/**
 * A function that builds an InboxDatabase on an imported cluster with `props`, in a stack of its
 * own each time it is called, for `expect(...).toThrow(...)`.
 *
 * @example
 * ```ts
 * expect(buildOnImported({ cleanupBatchSize: 0 })).toThrow(/cleanupBatchSize/);
 * ```
 */
export function buildOnImported(props: InboxDatabaseProps = {}): () => InboxDatabase {
  return () => {
    const stack = bareStack();
    return new InboxDatabase(stack, 'Inbox', { ...importedCluster(stack), databaseName: 'inbox', ...props });
  };
}
