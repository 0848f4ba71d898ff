import { twinOf } from '../database-roles/index.js';
import { INBOX_ENV } from '../inbox/contract.js';
import { RotationConfigError } from './errors.js';

/** What the function is deployed for: one role's secret on one database. */
export interface RotationSettings {
  /** The function role; the secret alternates between it and its twin. */
  readonly role: string;
  /** The role's twin. */
  readonly twin: string;
  /** The name prefix of testSecret's short-lived sign-in secrets. */
  readonly probeSecretPrefix: string;
  /** The cluster's ARN (the Data API's resourceArn). */
  readonly clusterArn: string;
  /** The owner's (master) secret, which setSecret signs in with. */
  readonly ownerSecretArn: string;
  readonly database: string;
}

// The characters a secret name may hold; the prefix is followed by the rotation's token.
const SECRET_NAME_PREFIX = /^[A-Za-z0-9/_+=.@-]{1,400}$/;

/**
 * The settings from the function's environment (ROTATED_ROLE, PROBE_SECRET_PREFIX, CLUSTER_ARN,
 * SECRET_ARN, DATABASE_NAME; the construct sets them), checked before any call is made.
 *
 * @example
 * ```ts
 * rotationSettings(process.env) // { role: 'inbox_worker', twin: 'inbox_worker_clone', ... }
 * ```
 */
export function rotationSettings(env: Readonly<Record<string, string | undefined>>): RotationSettings {
  const read = (name: string) => env[name]?.trim() ?? '';
  const names = [INBOX_ENV.rotatedRole, INBOX_ENV.probeSecretPrefix, INBOX_ENV.clusterArn, INBOX_ENV.secretArn, INBOX_ENV.databaseName];
  const missing = names.filter((name) => read(name) === '');
  if (missing.length > 0) {
    throw new RotationConfigError(`Set ${missing.join(', ')} in the rotation function's environment (the RoleSecretRotation construct sets them).`);
  }
  const role = read(INBOX_ENV.rotatedRole);
  let twin: string;
  try {
    twin = twinOf(role);
  } catch (error) {
    throw new RotationConfigError(`${INBOX_ENV.rotatedRole}: ${(error as Error).message}`);
  }
  const probeSecretPrefix = read(INBOX_ENV.probeSecretPrefix);
  if (!SECRET_NAME_PREFIX.test(probeSecretPrefix)) {
    throw new RotationConfigError(`${INBOX_ENV.probeSecretPrefix} ${JSON.stringify(probeSecretPrefix)} is not the start of a secret name: use letters, digits and /_+=.@- only.`);
  }
  return {
    role,
    twin,
    probeSecretPrefix,
    clusterArn: read(INBOX_ENV.clusterArn),
    ownerSecretArn: read(INBOX_ENV.secretArn),
    database: read(INBOX_ENV.databaseName),
  };
}
