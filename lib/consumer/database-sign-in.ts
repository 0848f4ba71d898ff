import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { grantDataApiCalls } from '../data-api-access.js';
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
    grantDataApiCalls(cluster, fn);
    secret.grantRead(fn);
    return;
  }
  cluster.grantDataApiAccess(fn);
  warn(scope, INBOX_WARNINGS.clusterOwnerSecret, 'No secret was given, so the function signs in with the cluster\'s own secret: the owner\'s '
    + 'credentials, which may change or drop any table. Give it a secret of its own for a database role with only its tables\' privileges '
    + '(rds.DatabaseSecret, a role granted in a migration, its password set from the secret), as the reference stack does.');
}
