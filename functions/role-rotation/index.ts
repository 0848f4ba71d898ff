import { Logger } from '@aws-lambda-powertools/logger';
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { dataApiDatabase } from '../inbox/data-api/index.js';
import type { InboxLogger } from '../inbox/index.js';
import { rotateRoleSecret } from './rotate-role-secret.js';
import { rotationRequestOf } from './rotation-event.js';
import { rotationSettings } from './rotation-settings.js';

/** The clients the rotation calls, made once per environment; a test hands in its own. */
export interface RotationHandlerDependencies {
  readonly secretsManager: SecretsManagerClient;
  readonly rdsData: RDSDataClient;
  /** @default the Lambda's environment */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** @default a Powertools Logger */
  readonly logger?: InboxLogger;
}

/**
 * The rotation function of a function role's secret, by alternating users: Secrets Manager invokes
 * it with `{ Step, SecretId, ClientRequestToken }` for createSecret (a new version for the role's
 * other login, with a new password), setSecret (that login's password, set as the cluster owner
 * through the Data API), testSecret (the pending version signs in through the Data API) and
 * finishSecret (the new version becomes AWSCURRENT). The functions keep signing in with AWSCURRENT,
 * whose password no step changes, so no sign-in fails while a rotation runs. Reads ROTATED_ROLE,
 * PROBE_SECRET_PREFIX, CLUSTER_ARN, SECRET_ARN (the owner's secret) and DATABASE_NAME; a throw fails
 * the step, which Secrets Manager retries.
 *
 * @example
 * ```ts
 * const handler = rotationHandler({ secretsManager: localSecretsManagerClient(endpoint), rdsData: localDataApiClient(api.endpoint) });
 * await handler({ Step: 'createSecret', SecretId: arn, ClientRequestToken: token }, context);
 * ```
 */
export function rotationHandler(dependencies: RotationHandlerDependencies) {
  const logger = dependencies.logger ?? new Logger();
  return async (event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>): Promise<void> => {
    const request = rotationRequestOf(event);
    const settings = rotationSettings(dependencies.env ?? process.env);
    try {
      await rotateRoleSecret({
        request,
        settings,
        secretsManager: dependencies.secretsManager,
        signIn: (secretArn) => dataApiDatabase({ resourceArn: settings.clusterArn, secretArn, database: settings.database, client: dependencies.rdsData }),
        wait: { remainingMs: () => context.getRemainingTimeInMillis() },
        logger,
      });
    } catch (error) {
      logger.error(`${request.step} failed`, { secretId: request.secretId, token: request.token, error: error as Error });
      throw error;
    }
  };
}

/**
 * The Lambda's handler: `rotationHandler` with the SDK's clients in the Lambda's region.
 *
 * @example
 * ```ts
 * // lib/: new RoleSecretRotation(this, 'WorkerRotation', { secret, role: 'inbox_worker', cluster, ownerSecret });
 * ```
 */
export const handler = rotationHandler({ secretsManager: new SecretsManagerClient({}), rdsData: new RDSDataClient({}) });
