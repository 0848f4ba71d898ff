import { Token } from 'aws-cdk-lib';
import type * as rds from 'aws-cdk-lib/aws-rds';

/**
 * What tells clusters apart within one app: a cluster made in this app is known by its path, an
 * imported one by its identifier, however often it was imported.
 *
 * @example
 * ```ts
 * clusterKey(rds.DatabaseCluster.fromDatabaseClusterAttributes(this, 'Db', { clusterIdentifier: 'orders' })) // 'orders'
 * ```
 */
export function clusterKey(cluster: rds.IDatabaseCluster): string {
  return Token.isUnresolved(cluster.clusterIdentifier) ? cluster.node.path : cluster.clusterIdentifier;
}
