import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { roleCredentials, type RoleCredentials } from '../database-roles/index.js';

/** A version of a role secret: the role's credentials, and every field the secret holds. */
export interface RoleSecretVersion {
  readonly credentials: RoleCredentials;
  /** The whole JSON object (username, password, and whatever else: host, engine, dbname, ...). */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** Which version to read: a staging label, and the version id it must be on. */
export interface VersionSelector {
  readonly stage: string;
  readonly versionId?: string;
}

/**
 * Reads one version of the role secret and checks it holds the role's (or its twin's) credentials.
 *
 * @example
 * ```ts
 * const current = await readRoleSecret(client, arn, 'inbox_worker', { stage: 'AWSCURRENT' });
 * ```
 */
export async function readRoleSecret(client: SecretsManagerClient, secretId: string, role: string, select: VersionSelector): Promise<RoleSecretVersion> {
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: select.stage, VersionId: select.versionId }));
  const credentials = roleCredentials({ role, secretArn: secretId }, SecretString ?? '');
  return { credentials, fields: JSON.parse(SecretString!) as Record<string, unknown> };
}

/**
 * The pending version of this rotation, or `undefined` while createSecret has not put it (the
 * version RotateSecret made has no value yet, which GetSecretValue answers ResourceNotFoundException).
 *
 * @example
 * ```ts
 * const pending = await readPendingIfPut(client, arn, 'inbox_worker', token);
 * ```
 */
export async function readPendingIfPut(client: SecretsManagerClient, secretId: string, role: string, token: string): Promise<RoleSecretVersion | undefined> {
  try {
    return await readRoleSecret(client, secretId, role, { stage: 'AWSPENDING', versionId: token });
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

/**
 * Puts the rotation's new value as version `token` with the AWSPENDING label only, so the functions
 * keep reading AWSCURRENT. Idempotent under the token: a retry with the same value changes nothing.
 *
 * @example
 * ```ts
 * await putPending(client, { secretId, token, rotationToken }, JSON.stringify(fields));
 * ```
 */
export async function putPending(client: SecretsManagerClient, request: { secretId: string; token: string; rotationToken?: string }, secretString: string): Promise<void> {
  await client.send(new PutSecretValueCommand({
    SecretId: request.secretId,
    ClientRequestToken: request.token,
    SecretString: secretString,
    VersionStages: ['AWSPENDING'],
    RotationToken: request.rotationToken,
  }));
}
