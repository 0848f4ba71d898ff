import { epochSeconds, optionalBoolean, optionalInteger, optionalString, requestToken, requiredString } from './input.js';
import type { Operation } from './operation-context.js';
import { invalidParameter, invalidRequest, resourceExists, resourceNotFound } from './secrets-manager-errors.js';
import { STAGE } from './secret-store.js';
import { sameValue, secretMembers, secretValueOf } from './secret-value.js';

// The characters a secret name may hold (CreateSecret's Name).
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * CreateSecret: a secret named `Name`, with a first version (AWSCURRENT) when a value is given.
 * Repeated with the same ClientRequestToken and value it succeeds and changes nothing; a name in
 * use is refused, and so is a name whose secret is marked for deletion until it is gone.
 */
export const createSecret: Operation = (input, { store }) => {
  const name = requiredString(input, 'Name', 1, 512);
  if (!SECRET_NAME.test(name)) throw invalidParameter('Invalid name. Must be a valid name containing alphanumeric characters, or any of the following: -/_+=.@!');
  const value = secretValueOf(input, true);
  const versionId = requestToken(input);
  const description = optionalString(input, 'Description', 0, 2048);
  const existing = store.find(name);
  if (existing !== undefined) {
    if (existing.deletedMs !== undefined) {
      throw invalidRequest('You can\'t create this secret because a secret with this name is already scheduled for deletion.');
    }
    const version = existing.versions.get(versionId);
    if (version !== undefined && value !== undefined && sameValue(version, value)) return { ...secretMembers(existing), VersionId: versionId };
    throw resourceExists(`The operation failed because the secret ${name} already exists.`);
  }
  const secret = store.create(name);
  secret.description = description;
  if (value === undefined) return secretMembers(secret);
  secret.addVersion(versionId, value, store.now());
  secret.attachStage(STAGE.current, versionId);
  return { ...secretMembers(secret), VersionId: versionId };
};

/**
 * DescribeSecret: the secret's metadata, with the labelled versions (VersionIdsToStages) and, once a
 * rotation was configured, RotationEnabled and the rotation's function and rules. Works on a secret
 * marked for deletion (it then has DeletedDate).
 */
export const describeSecret: Operation = (input, { store }) => {
  const secret = store.find(requiredString(input, 'SecretId', 1, 2048));
  if (secret === undefined) throw resourceNotFound();
  const { rotation } = secret;
  return {
    ...secretMembers(secret),
    ...(secret.description !== undefined ? { Description: secret.description } : {}),
    ...(rotation.enabled !== undefined ? { RotationEnabled: rotation.enabled } : {}),
    ...(rotation.lambdaArn !== undefined ? { RotationLambdaARN: rotation.lambdaArn } : {}),
    ...(rotation.rules !== undefined ? { RotationRules: rotation.rules } : {}),
    ...(rotation.lastRotatedMs !== undefined ? { LastRotatedDate: epochSeconds(rotation.lastRotatedMs) } : {}),
    ...(secret.deletedMs !== undefined ? { DeletedDate: epochSeconds(secret.deletedMs) } : {}),
    CreatedDate: epochSeconds(secret.createdMs),
    LastChangedDate: epochSeconds(secret.lastChangedMs),
    VersionIdsToStages: secret.versionIdsToStages(),
  };
};

/**
 * DeleteSecret: marks the secret for deletion after a recovery window (7 to 30 days, 30 unless
 * given), during which every other operation refuses it; with ForceDeleteWithoutRecovery it is
 * gone, and its name free, once the stand-in's `forcedDeletionMs` have passed (the service completes
 * a forced deletion asynchronously; until then the secret is marked for deletion).
 */
export const deleteSecret: Operation = (input, { store, forcedDeletionMs }) => {
  const secret = store.live(requiredString(input, 'SecretId', 1, 2048));
  const force = optionalBoolean(input, 'ForceDeleteWithoutRecovery', false);
  if (force && input['RecoveryWindowInDays'] !== undefined) {
    throw invalidParameter('You can\'t use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.');
  }
  const windowDays = optionalInteger(input, 'RecoveryWindowInDays', 7, 30, 30);
  const now = store.now();
  if (force) {
    store.forceDelete(secret, forcedDeletionMs);
    return { ...secretMembers(secret), DeletionDate: epochSeconds(now + forcedDeletionMs) };
  }
  secret.deletedMs = now;
  return { ...secretMembers(secret), DeletionDate: epochSeconds(now + windowDays * DAY_MS) };
};
