import { type Input, optionalBoolean, optionalString, requestToken, requiredString } from './input.js';
import type { Operation } from './operation-context.js';
import { invalidRequest, validationError } from './secrets-manager-errors.js';
import { STAGE } from './secret-store.js';
import { secretMembers } from './secret-value.js';

/** RotationRules as given: AutomaticallyAfterDays (1 to 1000), Duration, ScheduleExpression. */
function rotationRulesOf(input: Input): Readonly<Record<string, unknown>> | undefined {
  const rules = input['RotationRules'];
  if (rules === undefined || rules === null) return undefined;
  if (typeof rules !== 'object' || Array.isArray(rules)) throw validationError('rotationRules', 'Member must be a structure');
  const days = (rules as Record<string, unknown>)['AutomaticallyAfterDays'];
  if (days !== undefined && (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > 1000)) {
    throw validationError('rotationRules.automaticallyAfterDays', 'Member must have value between 1 and 1000');
  }
  return rules as Readonly<Record<string, unknown>>;
}

/**
 * RotateSecret: configures the secret's rotation (RotationEnabled, the function, the rules) and,
 * unless RotateImmediately is false, starts one: a new version under the request's
 * ClientRequestToken with the AWSPENDING label and no value, which the rotation function's
 * createSecret fills, then the function's four steps (see RotationRunner). Refused while an earlier
 * rotation has not finished (AWSPENDING on a version that is not AWSCURRENT), and for a secret with
 * no rotation function configured or given.
 */
export const rotateSecret: Operation = (input, { store, rotations }) => {
  const secret = store.live(requiredString(input, 'SecretId', 1, 2048));
  const versionId = requestToken(input);
  const lambdaArn = optionalString(input, 'RotationLambdaARN', 0, 2048) ?? secret.rotation.lambdaArn;
  const rules = rotationRulesOf(input);
  const immediately = optionalBoolean(input, 'RotateImmediately', true);
  if (lambdaArn === undefined || lambdaArn === '') {
    throw invalidRequest('No Lambda rotation function ARN is associated with this secret: specify RotationLambdaARN.');
  }
  const pending = secret.versionWithStage(STAGE.pending);
  if (pending !== undefined && !pending.stages.has(STAGE.current)) {
    throw invalidRequest('A previous rotation isn\'t complete. That rotation will be reattempted.');
  }
  secret.rotation.enabled = true;
  secret.rotation.lambdaArn = lambdaArn;
  if (rules !== undefined) secret.rotation.rules = rules;
  if (!immediately) return secretMembers(secret);
  secret.addVersion(versionId, undefined, store.now());
  secret.attachStage(STAGE.pending, versionId);
  rotations.start(secret.arn, lambdaArn, versionId);
  return { ...secretMembers(secret), VersionId: versionId };
};
