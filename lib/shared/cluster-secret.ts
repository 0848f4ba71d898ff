import * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';

/**
 * The secret a cluster carries: `IDatabaseCluster` declares none, but `DatabaseClusterBase`, the
 * base of every cluster class (made, restored from a snapshot or imported), does; an imported
 * cluster's is undefined.
 *
 * @example
 * ```ts
 * const secret = props.secret ?? clusterSecret(props.cluster); // undefined for an imported cluster
 * ```
 */
export function clusterSecret(cluster: rds.IDatabaseCluster): secretsmanager.ISecret | undefined {
  return cluster instanceof rds.DatabaseClusterBase ? cluster.secret : undefined;
}
