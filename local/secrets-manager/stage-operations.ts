import { optionalString, requiredString } from './input.js';
import type { Operation } from './operation-context.js';
import { invalidParameter, resourceNotFound } from './secrets-manager-errors.js';
import { STAGE } from './secret-store.js';
import { secretMembers } from './secret-value.js';

/**
 * UpdateSecretVersionStage: moves a staging label to MoveToVersionId, or takes it off
 * RemoveFromVersionId. A label already on another version moves only when RemoveFromVersionId names
 * that version (the service's guard against moving a label someone else moved meanwhile); moving
 * AWSCURRENT moves AWSPREVIOUS to the version it left. AWSCURRENT cannot be taken off without being
 * moved: a secret always has a current version. The label stays wherever else the request does not
 * say: moving AWSCURRENT onto a rotation's AWSPENDING version leaves AWSPENDING there, which Secrets
 * Manager itself clears once the rotation has succeeded.
 */
export const updateSecretVersionStage: Operation = (input, { store }) => {
  const secret = store.live(requiredString(input, 'SecretId', 1, 2048));
  const stage = requiredString(input, 'VersionStage', 1, 256);
  const moveTo = optionalString(input, 'MoveToVersionId', 32, 64);
  const removeFrom = optionalString(input, 'RemoveFromVersionId', 32, 64);
  const holder = secret.versionWithStage(stage);
  if (moveTo === undefined) {
    if (removeFrom === undefined) throw invalidParameter('You must specify MoveToVersionId or RemoveFromVersionId.');
    if (holder?.id !== removeFrom) throw invalidParameter(`The staging label ${stage} is not attached to version ${removeFrom}.`);
    if (stage === STAGE.current) throw invalidParameter(`You can't remove the staging label ${STAGE.current} without moving it to another version: specify MoveToVersionId.`);
    secret.removeStage(stage, removeFrom);
    return secretMembers(secret);
  }
  if (!secret.versions.has(moveTo)) throw resourceNotFound(`Secrets Manager can't find the specified secret version: ${moveTo}`);
  if (holder !== undefined && holder.id !== moveTo) {
    if (removeFrom === undefined) {
      throw invalidParameter(`The parameter RemoveFromVersionId can't be empty. Staging label ${stage} is currently attached to version ${holder.id}, `
        + 'so you must explicitly reference that version in RemoveFromVersionId.');
    }
    if (removeFrom !== holder.id) {
      throw invalidParameter(`When you move staging label ${stage}, if you specify RemoveFromVersionId, it must be set to the version that currently has the staging label ${stage}.`);
    }
  }
  secret.attachStage(stage, moveTo);
  secret.lastChangedMs = store.now();
  return secretMembers(secret);
};
