import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { CONSUMER_DATA_API_ACTIONS, grantDataApiCalls } from '../data-api-access.js';
import { INBOX_WARNINGS, warn } from './warnings.js';

/**
 * What a consumer function may do to reach its database: with a `secret` of its own, the Data API
 * calls and that secret alone (`cluster.grantDataApiAccess` would also let it read the cluster's
 * secret, and sign in as the owner); without one, the cluster's grant, and a warning on `scope`
 * that the function signs in as the owner.
 *
 * @example
 * ```ts
 * grantDatabaseSignIn(this, cluster, fn, props.secret);
 * ```
 */
export function grantDatabaseSignIn(scope: Construct, cluster: rds.IDatabaseCluster, fn: iam.IGrantable, secret: secretsmanager.ISecret | undefined): void {
  if (secret) {
    grantDataApiCalls(cluster, fn, CONSUMER_DATA_API_ACTIONS);
    secret.grantRead(fn);
    return;
  }
  cluster.grantDataApiAccess(fn);
  warn(scope, INBOX_WARNINGS.clusterOwnerSecret, 'No secret was given, so the function signs in with the cluster\'s own secret: the owner\'s '
    + 'credentials, which may change or drop any table. Attach the consumer to an InboxDatabase instead (sqs-inbox/cdk; database: inboxDatabase), '
    + 'which gives it a database role of its own with only the inbox table\'s privileges, a rotated secret only it may read, and a role name '
    + 'your migrations grant your tables to; or pass the secret of such a role as secret.');
}
