import { DescribeSecretCommand, UpdateSecretVersionStageCommand } from '@aws-sdk/client-secrets-manager';
import type { RotationContext } from './rotation-context.js';
import { currentVersionOf, STAGE } from './version-stages.js';

/**
 * finishSecret: moves AWSCURRENT to the rotation's version (Secrets Manager moves AWSPREVIOUS to the
 * version it leaves, and clears AWSPENDING once the rotation has succeeded). From the next call on,
 * the functions sign in as the pending user; the user of AWSPREVIOUS keeps its password until the
 * next rotation's setSecret changes it. Already current (a retry): nothing to do.
 *
 * @example
 * ```ts
 * await finishSecret(context);
 * ```
 */
export async function finishSecret(context: RotationContext): Promise<void> {
  const { secretsManager, request, logger } = context;
  const { VersionIdsToStages } = await secretsManager.send(new DescribeSecretCommand({ SecretId: request.secretId }));
  const current = currentVersionOf(VersionIdsToStages ?? {});
  if (current === request.token) return;
  await secretsManager.send(new UpdateSecretVersionStageCommand({
    SecretId: request.secretId,
    VersionStage: STAGE.current,
    MoveToVersionId: request.token,
    RemoveFromVersionId: current,
  }));
  logger.info('finishSecret: the pending version is current', { secretId: request.secretId, token: request.token, previous: current });
}
