import { CreateSecretCommand, DeleteSecretCommand, InvalidRequestException, ResourceNotFoundException } from '@aws-sdk/client-secrets-manager';
import type { RoleCredentials } from '../database-roles/index.js';
import { RotationStateError } from './errors.js';
import type { RotationContext } from './rotation-context.js';

/**
 * The name of the sign-in probe of a rotation: the function's prefix and the rotation's token, so
 * every attempt of one rotation's testSecret uses the same secret (and a retry finds, reuses and
 * deletes what a crashed attempt left) while no two rotations share one.
 *
 * @example
 * ```ts
 * probeSecretName('sqs-inbox/rotation-probe/abc/', token) // 'sqs-inbox/rotation-probe/abc/<token>'
 * ```
 */
export function probeSecretName(prefix: string, token: string): string {
  return `${prefix}${token}`;
}

/**
 * Runs `work` with the ARN of a short-lived secret that holds the pending credentials, then deletes
 * that secret whatever `work` did. The Data API signs in only with a secret's AWSCURRENT version,
 * so this is how testSecret signs in with the pending password before finishSecret makes it current.
 * Created under the rotation's token, which makes a repeated create of the same value a no-op, and
 * deleted without a recovery window. A probe name still held by an earlier attempt's deletion (the
 * service completes a forced deletion within seconds) fails this attempt; Secrets Manager retries.
 *
 * @example
 * ```ts
 * await withSignInProbe(context, pending.credentials, (probeArn) => signIn(probeArn).query(sql`SELECT current_user`));
 * ```
 */
export async function withSignInProbe<T>(context: RotationContext, credentials: RoleCredentials, work: (probeArn: string) => Promise<T>): Promise<T> {
  const { secretsManager, request, settings } = context;
  const name = probeSecretName(settings.probeSecretPrefix, request.token);
  let arn: string;
  try {
    const created = await secretsManager.send(new CreateSecretCommand({
      Name: name,
      ClientRequestToken: request.token,
      SecretString: JSON.stringify({ username: credentials.username, password: credentials.password }),
      Description: `Sign-in probe of the rotation ${request.token} of ${request.secretId}; deleted by its testSecret`,
    }));
    arn = created.ARN ?? name;
  } catch (error) {
    if (error instanceof InvalidRequestException) {
      throw new RotationStateError(`The sign-in probe ${name} is still being deleted by an earlier attempt (${error.message}): the next retry of testSecret can create it.`);
    }
    throw error;
  }
  try {
    return await work(arn);
  } finally {
    await secretsManager.send(new DeleteSecretCommand({ SecretId: arn, ForceDeleteWithoutRecovery: true })).catch((error: unknown) => {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    });
  }
}
