import { alternateLogin, setRolePassword } from '../database-roles/index.js';
import { untilResumed } from '../inbox/data-api/index.js';
import { RotationStateError } from './errors.js';
import type { RotationContext } from './rotation-context.js';
import { readRoleSecret } from './secret-versions.js';
import { STAGE } from './version-stages.js';

/**
 * setSecret: gives the pending version's user its password, signed in as the cluster's owner (the
 * master secret) through the Data API, with inbox_set_role_password and a SCRAM verifier. The
 * pending user must be the login the secret does not hold now, so this step never changes the
 * password the functions sign in with: between this step and finishSecret they keep signing in with
 * AWSCURRENT (alternating users). A retry sets the same password again, which is harmless.
 * Unlike AWS's templates it does not first sign in with AWSCURRENT: with the Data API that would be
 * one more call for a check the role pinning already makes, and a rotation is then also the way
 * back from a current password someone changed by hand.
 *
 * @example
 * ```ts
 * await setSecret(context); // ALTER ROLE inbox_worker_clone ... (as a verifier)
 * ```
 */
export async function setSecret(context: RotationContext): Promise<void> {
  const { secretsManager, request, settings, logger } = context;
  const current = await readRoleSecret(secretsManager, request.secretId, settings.role, { stage: STAGE.current });
  const pending = await readRoleSecret(secretsManager, request.secretId, settings.role, { stage: STAGE.pending, versionId: request.token });
  const expected = alternateLogin(settings.role, current.credentials.username);
  if (pending.credentials.username !== expected) {
    throw new RotationStateError(`The pending version ${request.token} of ${request.secretId} is for ${pending.credentials.username}, but the functions sign in as `
      + `${current.credentials.username}, so the password to change is ${expected}'s: start a new rotation (its createSecret puts the right user).`);
  }
  const owner = context.signIn(settings.ownerSecretArn);
  try {
    await untilResumed(() => setRolePassword(owner, pending.credentials.username, pending.credentials.password), context.wait);
  } finally {
    await owner.close();
  }
  logger.info('setSecret: set the pending password', { secretId: request.secretId, token: request.token, username: pending.credentials.username });
}
