import { describe, expect, it } from 'vitest';
import { RotationStateError } from '../../functions/role-rotation/errors.js';
import { currentVersionOf, stepToRun } from '../../functions/role-rotation/version-stages.js';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:worker-AbCdEf';

describe('the DescribeSecret checks before every step', () => {
  it('runs the step for the pending version of a secret enabled for rotation', () => {
    expect(stepToRun({ RotationEnabled: true, VersionIdsToStages: { old: ['AWSCURRENT'], new: ['AWSPENDING'] } }, 'new', ARN)).toBe('run');
  });

  it('does nothing for a version that is already current: a retry after the rotation finished', () => {
    expect(stepToRun({ RotationEnabled: true, VersionIdsToStages: { old: ['AWSPREVIOUS'], new: ['AWSCURRENT', 'AWSPENDING'] } }, 'new', ARN)).toBe('done');
  });

  it.each([
    ['rotation off', { RotationEnabled: false, VersionIdsToStages: { new: ['AWSPENDING'] } }, /is not enabled for rotation/],
    ['a secret never configured for rotation (no RotationEnabled)', { VersionIdsToStages: { new: ['AWSPENDING'] } }, /is not enabled for rotation/],
    ['a token with no labelled version', { RotationEnabled: true, VersionIdsToStages: { old: ['AWSCURRENT'] } }, /has no labelled version new/],
    ['a token whose version is not pending', { RotationEnabled: true, VersionIdsToStages: { old: ['AWSCURRENT'], new: ['AWSPREVIOUS'] } }, /is not AWSPENDING \(it is AWSPREVIOUS\)/],
  ])('refuses %s', (_what, metadata, message) => {
    expect(() => stepToRun(metadata, 'new', ARN)).toThrow(RotationStateError);
    expect(() => stepToRun(metadata, 'new', ARN)).toThrow(message);
  });

  it('finds the version that holds AWSCURRENT', () => {
    expect(currentVersionOf({ a: ['AWSPREVIOUS'], b: ['AWSCURRENT'] })).toBe('b');
    expect(currentVersionOf({})).toBeUndefined();
  });
});
