import { epochSeconds, requestToken, optionalString, optionalStrings, requiredString } from './input.js';
import type { Operation } from './operation-context.js';
import { invalidRequest, resourceExists, resourceNotFound } from './secrets-manager-errors.js';
import { STAGE, type SecretVersion, type StoredSecret } from './secret-store.js';
import { sameValue, secretMembers, secretValueOf, valueMembers } from './secret-value.js';

/**
 * The version a GetSecretValue asks for: by VersionId, by VersionStage, or both (the version must
 * then carry the stage); AWSCURRENT when neither. A version that exists without a value (the
 * placeholder of a rotation whose createSecret has not put one) is not found, which is how a
 * rotation function's createSecret learns it has a value to put.
 */
function requestedVersion(secret: StoredSecret, versionId: string | undefined, versionStage: string | undefined): SecretVersion {
  let version: SecretVersion | undefined;
  if (versionId !== undefined) {
    version = secret.versions.get(versionId);
    if (version === undefined) throw resourceNotFound(`Secrets Manager can't find the specified secret value for VersionId: ${versionId}`);
    if (versionStage !== undefined && !version.stages.has(versionStage)) {
      throw invalidRequest('You provided a VersionStage that is not associated to the provided VersionId.');
    }
  } else {
    const stage = versionStage ?? STAGE.current;
    version = secret.versionWithStage(stage);
    if (version === undefined) throw resourceNotFound(`Secrets Manager can't find the specified secret value for staging label: ${stage}`);
  }
  if (version.value === undefined) {
    throw resourceNotFound(`Secrets Manager can't find the specified secret value for VersionId: ${version.id}`);
  }
  return version;
}

export const getSecretValue: Operation = (input, { store }) => {
  const secret = store.live(requiredString(input, 'SecretId', 1, 2048));
  const version = requestedVersion(secret, optionalString(input, 'VersionId', 32, 64), optionalString(input, 'VersionStage', 1, 256));
  return {
    ...secretMembers(secret),
    VersionId: version.id,
    ...valueMembers(version.value!),
    VersionStages: [...version.stages],
    CreatedDate: epochSeconds(version.createdMs),
  };
};

/**
 * PutSecretValue: a new version under the request's ClientRequestToken with the stages asked for
 * (AWSCURRENT when none is named, which moves AWSPREVIOUS to the version it leaves). Idempotent: the
 * same token with the same value succeeds and changes nothing, with another value it is refused.
 * A rotation's placeholder version (AWSPENDING, no value yet) takes the value under its own token;
 * the first version of a secret becomes AWSCURRENT whatever stages the request names.
 */
export const putSecretValue: Operation = (input, { store }) => {
  const secret = store.live(requiredString(input, 'SecretId', 1, 2048));
  const value = secretValueOf(input, false)!;
  const versionId = requestToken(input);
  const stages = optionalStrings(input, 'VersionStages') ?? [STAGE.current];
  optionalString(input, 'RotationToken', 1, 256);
  const existing = secret.versions.get(versionId);
  if (existing?.value !== undefined) {
    if (!sameValue(existing, value)) throw resourceExists('You can\'t modify an existing version, you can only create a new version.');
    return { ...secretMembers(secret), VersionId: versionId, VersionStages: [...existing.stages] };
  }
  const version = existing ?? secret.addVersion(versionId, undefined, store.now());
  version.value = value;
  secret.lastChangedMs = store.now();
  // The first version of a secret is its current one, whatever stages the request names.
  const first = secret.versionWithStage(STAGE.current) === undefined;
  for (const stage of first ? [...new Set([...stages, STAGE.current])] : stages) secret.attachStage(stage, versionId);
  return { ...secretMembers(secret), VersionId: versionId, VersionStages: [...version.stages] };
};
