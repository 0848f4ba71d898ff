import { describe, expect, it } from 'vitest';
import { RotationConfigError } from '../../functions/role-rotation/errors.js';
import { ROTATION_STEP, rotationRequestOf } from '../../functions/role-rotation/rotation-event.js';
import { rotationSettings } from '../../functions/role-rotation/rotation-settings.js';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:worker-AbCdEf';
const TOKEN = '6f1a0b6e-3f1e-4c8e-9b8a-2d1c0e9f8a7b';

describe('the rotation event, as Secrets Manager sends it', () => {
  it('gives the step, the secret, the version\'s token and the rotation token', () => {
    expect(rotationRequestOf({ Step: 'createSecret', SecretId: ARN, ClientRequestToken: TOKEN, RotationToken: 'rt-1' }))
      .toEqual({ step: 'createSecret', secretId: ARN, token: TOKEN, rotationToken: 'rt-1' });
  });

  it('takes an event without a RotationToken, as older events are', () => {
    expect(rotationRequestOf({ Step: 'finishSecret', SecretId: ARN, ClientRequestToken: TOKEN })).toEqual({ step: 'finishSecret', secretId: ARN, token: TOKEN });
  });

  it.each(Object.values(ROTATION_STEP).map((step) => [step, step.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)]))(
    'reads %s in both documented spellings (%s, as the user guide writes it)',
    (step, snake) => {
      expect(rotationRequestOf({ Step: step, SecretId: ARN, ClientRequestToken: TOKEN }).step).toBe(step);
      expect(rotationRequestOf({ Step: snake, SecretId: ARN, ClientRequestToken: TOKEN }).step).toBe(step);
    },
  );

  it.each([
    ['no object', 'createSecret', /is not an object/],
    ['an unknown step', { Step: 'rotateSecret', SecretId: ARN, ClientRequestToken: TOKEN }, /Step "rotateSecret" is none of createSecret, setSecret, testSecret, finishSecret/],
    ['a step named after a property of every object', { Step: 'constructor', SecretId: ARN, ClientRequestToken: TOKEN }, /is none of/],
    ['no secret', { Step: 'setSecret', ClientRequestToken: TOKEN }, /has no SecretId/],
    ['an empty token', { Step: 'setSecret', SecretId: ARN, ClientRequestToken: ' ' }, /has no ClientRequestToken/],
  ])('is refused with %s', (_what, event, message) => {
    expect(() => rotationRequestOf(event)).toThrow(RotationConfigError);
    expect(() => rotationRequestOf(event)).toThrow(message);
  });
});

describe('the rotation function\'s environment', () => {
  const env = {
    ROTATED_ROLE: 'inbox_worker',
    PROBE_SECRET_PREFIX: 'sqs-inbox/rotation-probe/c8a1/',
    CLUSTER_ARN: 'arn:aws:rds:us-east-1:123456789012:cluster:db',
    SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:owner-AbCdEf',
    DATABASE_NAME: 'inbox',
  };

  it('names the role and its twin, the probe prefix, and the owner\'s sign-in', () => {
    expect(rotationSettings(env)).toEqual({
      role: 'inbox_worker', twin: 'inbox_worker_clone', probeSecretPrefix: env.PROBE_SECRET_PREFIX,
      clusterArn: env.CLUSTER_ARN, ownerSecretArn: env.SECRET_ARN, database: 'inbox',
    });
  });

  it.each([
    ['a missing variable', { ...env, SECRET_ARN: '' }, /Set SECRET_ARN in the rotation function's environment/],
    ['a role without a twin', { ...env, ROTATED_ROLE: 'inbox_worker_clone' }, /ROTATED_ROLE: "inbox_worker_clone" cannot have a twin/],
    ['a prefix that is no secret name', { ...env, PROBE_SECRET_PREFIX: 'probe *' }, /is not the start of a secret name/],
  ])('is refused with %s', (_what, given, message) => {
    expect(() => rotationSettings(given)).toThrow(RotationConfigError);
    expect(() => rotationSettings(given)).toThrow(message);
  });
});
