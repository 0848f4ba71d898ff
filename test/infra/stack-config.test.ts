import { App, RemovalPolicy } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { InfraConfigError } from '../../lib/infra-config-error.js';
import { stackConfigFromContext } from '../../lib/stack-config.js';
import { CLEANUP_BATCH_SIZE_LIMITS } from '../../functions/inbox/limits.js';

const configOf = (context: Record<string, unknown>) => stackConfigFromContext(new App({ context }).node);

describe('stack context defaults', () => {
  it('are a dev stage that pauses at 0 ACU, keeps a snapshot on removal and cleans daily after 21 days (4 days of queue plus 14 of DLQ, and 3 to spare)', () => {
    const config = configOf({});
    expect(config).toMatchObject({
      stage: 'dev', deletionProtection: false, removalPolicy: RemovalPolicy.SNAPSHOT, minCapacity: 0, maxCapacity: 2,
      retentionDays: 21, cleanupBatchSize: 1000, cleanupSchedule: 'cron(17 3 * * ? *)',
    });
    expect(config.autoPause.toMinutes()).toBe(5);
  });
});

describe('stack context given', () => {
  it('is read from typed cdk.json values and from -c strings alike', () => {
    expect(configOf({ deletionProtection: true, minCapacity: 1, removalPolicy: 'retain' }))
      .toMatchObject({ deletionProtection: true, minCapacity: 1, removalPolicy: RemovalPolicy.RETAIN });
    expect(configOf({ deletionProtection: 'true', minCapacity: '1.5', maxCapacity: '4', removalPolicy: 'destroy', stage: 'prod' }))
      .toMatchObject({ deletionProtection: true, minCapacity: 1.5, maxCapacity: 4, removalPolicy: RemovalPolicy.DESTROY, stage: 'prod' });
  });
});

describe('bad stack context', () => {
  it.each([
    [{ stage: 'Prod_1' }, /context stage must be lower-case letters.*but "Prod_1" was provided/],
    [{ deletionProtection: 'yes' }, /context deletionProtection must be true or false, but "yes" was provided/],
    [{ removalPolicy: 'keep' }, /context removalPolicy must be destroy, snapshot or retain, but "keep" was provided/],
    [{ minCapacity: '0.3' }, /context minCapacity must be ACUs from 0 to 256 in steps of 0.5.*but 0.3 was provided/],
    [{ maxCapacity: 0 }, /context maxCapacity must be ACUs from 1 to 256 in steps of 0.5.*but 0 was provided/],
    [{ minCapacity: 4, maxCapacity: 2 }, /context maxCapacity must be at least minCapacity \(4\), but 2 was provided/],
    [{ autoPauseMinutes: 2 }, /context autoPauseMinutes must be whole minutes from 5 to 1440, but 2 was provided/],
    [{ retentionDays: 'two' }, /context retentionDays must be whole days from 1 to 3650, but "two" was provided/],
    [{ cleanupBatchSize: 0 }, /context cleanupBatchSize must be a whole number of rows from 1 to 10000, but 0 was provided/],
    [{ cleanupBatchSize: 10_001 }, /context cleanupBatchSize must be a whole number of rows from 1 to 10000, but 10001 was provided/],
    [{ cleanupSchedule: 'daily' }, /context cleanupSchedule must be an EventBridge schedule expression.*but "daily" was provided/],
  ])('%j is refused with what to give instead', (context, message) => {
    expect(() => configOf(context)).toThrow(InfraConfigError);
    expect(() => configOf(context)).toThrow(message);
  });

  it('is refused all at once', () => {
    expect(() => configOf({ stage: 'X', retentionDays: 0 })).toThrow(/stage[\s\S]*retentionDays/);
  });
});

describe('the cleanup batch size limit', () => {
  it('is the one the cleanup runtime enforces: the largest it takes is accepted, one more is refused', () => {
    expect(configOf({ cleanupBatchSize: CLEANUP_BATCH_SIZE_LIMITS.max }).cleanupBatchSize).toBe(CLEANUP_BATCH_SIZE_LIMITS.max);
    expect(() => configOf({ cleanupBatchSize: CLEANUP_BATCH_SIZE_LIMITS.max + 1 })).toThrow(InfraConfigError);
  });
});
