import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as rds from 'aws-cdk-lib/aws-rds';
import { InfraConfigError } from './infra-config-error.js';

/** The RDS Data API calls the kit's functions make: statements and transactions (a consumer's driver also batches: `CONSUMER_DATA_API_ACTIONS`). */
export const DATA_API_ACTIONS = [
  'rds-data:BeginTransaction',
  'rds-data:CommitTransaction',
  'rds-data:ExecuteStatement',
  'rds-data:RollbackTransaction',
] as const;

/**
 * The calls of a consumer's driver: those, and BatchExecuteStatement for batched statement mode
 * (`batchStatements`, its default). Without it every batch would be refused and run again a
 * statement a record.
 */
export const CONSUMER_DATA_API_ACTIONS = [...DATA_API_ACTIONS, 'rds-data:BatchExecuteStatement'] as const;

/** One of the Data API calls the kit makes. */
export type DataApiAction = (typeof CONSUMER_DATA_API_ACTIONS)[number];

/**
 * Lets `grantee` make the Data API calls on `cluster` (all the kit makes, or the `actions` given),
 * and nothing else: unlike
 * `cluster.grantDataApiAccess`, no secret is granted, so the grantee can sign in only with a secret
 * it is given separately (`secret.grantRead`). That read is what tells the functions' database
 * users apart: IAM's rds-data actions have no condition key naming the secret. Like the CDK's
 * grant, it switches the Data API on for a cluster of this app that left `enableDataApi` unset,
 * and refuses one that turned it off.
 *
 * @example
 * ```ts
 * grantDataApiCalls(cluster, cleanupFunction);
 * cleanupSecret.grantRead(cleanupFunction);
 * ```
 */
export function grantDataApiCalls(cluster: rds.IDatabaseCluster, grantee: iam.IGrantable, actions: readonly DataApiAction[] = DATA_API_ACTIONS): iam.Grant {
  const cfn = cluster.node.defaultChild;
  if (cfn instanceof rds.CfnDBCluster) {
    const enabled: unknown = Stack.of(cluster).resolve(cfn.enableHttpEndpoint);
    if (enabled === false) {
      throw new InfraConfigError(`The cluster ${cluster.node.path} has enableDataApi: false, but the inbox reaches it only through the RDS Data API: set enableDataApi: true.`);
    }
    if (enabled === undefined) cfn.enableHttpEndpoint = true;
  }
  return iam.Grant.addToPrincipal({ grantee, actions: [...actions], resourceArns: [cluster.clusterArn] });
}
