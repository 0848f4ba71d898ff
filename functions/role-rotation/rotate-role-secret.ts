import { DescribeSecretCommand } from '@aws-sdk/client-secrets-manager';
import { createSecret } from './create-secret.js';
import { finishSecret } from './finish-secret.js';
import type { RotationContext } from './rotation-context.js';
import { ROTATION_STEP, type RotationStep } from './rotation-event.js';
import { setSecret } from './set-secret.js';
import { testSecret } from './test-secret.js';
import { stepToRun } from './version-stages.js';

const STEPS: Readonly<Record<RotationStep, (context: RotationContext) => Promise<void>>> = {
  [ROTATION_STEP.create]: createSecret,
  [ROTATION_STEP.set]: setSecret,
  [ROTATION_STEP.test]: testSecret,
  [ROTATION_STEP.finish]: finishSecret,
};

/**
 * Runs one step of a role secret's rotation, after checking with DescribeSecret that the secret is
 * enabled for rotation and that the event's version is the pending one (or already current: a late
 * retry, which does nothing). Every step can run again without harm; none logs a password.
 *
 * @example
 * ```ts
 * await rotateRoleSecret({ request, settings, secretsManager, signIn, wait, logger });
 * ```
 */
export async function rotateRoleSecret(context: RotationContext): Promise<void> {
  const { request, secretsManager, logger } = context;
  const metadata = await secretsManager.send(new DescribeSecretCommand({ SecretId: request.secretId }));
  if (stepToRun(metadata, request.token, request.secretId) === 'done') {
    logger.info(`${request.step}: the version is already AWSCURRENT`, { secretId: request.secretId, token: request.token });
    return;
  }
  await STEPS[request.step](context);
}
