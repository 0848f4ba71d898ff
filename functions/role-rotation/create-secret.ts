import { GetRandomPasswordCommand } from '@aws-sdk/client-secrets-manager';
import { alternateLogin } from '../database-roles/index.js';
import type { RotationContext } from './rotation-context.js';
import { putPending, readPendingIfPut, readRoleSecret } from './secret-versions.js';
import { STAGE } from './version-stages.js';

/**
 * The new password: 32 characters from GetRandomPassword, without the characters the CDK's
 * DatabaseSecret leaves out (space and `%+~\`#$&*()|[]{}:;<>?!'/@"\\`), so it is printable ASCII
 * (which the SCRAM verifier needs) and safe in a connection URL.
 */
export const PENDING_PASSWORD = {
  PasswordLength: 32,
  ExcludeCharacters: ' %+~`#$&*()|[]{}:;<>?!\'/@"\\',
  RequireEachIncludedType: true,
} as const;

/**
 * createSecret: puts the rotation's new version (AWSPENDING, under the event's token) with the same
 * fields as the current one, the role's other login as its username (the twin when the secret is on
 * the role, the role when it is on the twin) and a new password. When this rotation's version
 * already has a value (a retry), it is left as it is.
 *
 * @example
 * ```ts
 * await createSecret(context); // AWSPENDING: { username: 'inbox_worker_clone', password: <new> }
 * ```
 */
export async function createSecret(context: RotationContext): Promise<void> {
  const { secretsManager, request, settings, logger } = context;
  const current = await readRoleSecret(secretsManager, request.secretId, settings.role, { stage: STAGE.current });
  const pending = await readPendingIfPut(secretsManager, request.secretId, settings.role, request.token);
  if (pending !== undefined) {
    logger.info('createSecret: the pending version is already there', { secretId: request.secretId, token: request.token, username: pending.credentials.username });
    return;
  }
  const username = alternateLogin(settings.role, current.credentials.username);
  const { RandomPassword } = await secretsManager.send(new GetRandomPasswordCommand(PENDING_PASSWORD));
  await putPending(secretsManager, request, JSON.stringify({ ...current.fields, username, password: RandomPassword }));
  logger.info('createSecret: put the pending version', { secretId: request.secretId, token: request.token, username });
}
