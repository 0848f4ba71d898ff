import { App, Duration, Stack } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { checkCleanupRetention } from '../../lib/cleanup/cleanup-retention.js';
import { InfraConfigError } from '../../lib/infra-config-error.js';

/** A stand-in for a consumer: what the check reads of one is its path and its inbox retention. */
class Retaining extends Construct {
  public constructor(scope: Construct, id: string, public readonly inboxRetention: Duration) {
    super(scope, id);
  }
}

describe('one cleanup retention for every consumer\'s rows', () => {
  const stack = new Stack(new App(), 'Shop');
  const orders = new Retaining(stack, 'Orders', Duration.days(22));
  const shipping = new Retaining(stack, 'Shipping', Duration.days(30));

  it('is refused when shorter than a consumer\'s inbox retention, naming each such consumer and what to keep', () => {
    expect(() => checkCleanupRetention(Duration.days(25), [orders, shipping])).toThrow(InfraConfigError);
    expect(() => checkCleanupRetention(Duration.days(25), [orders, shipping]))
      .toThrow(/deletes every consumer's inbox rows after 25 days, but Shop\/Shipping needs them 30 days: keep them at least 30 days/);
    expect(() => checkCleanupRetention(Duration.days(21), [orders, shipping])).toThrow(/Shop\/Orders needs them 22 days, Shop\/Shipping needs them 30 days/);
  });

  it('is accepted at exactly the longest inbox retention, and above', () => {
    expect(() => checkCleanupRetention(Duration.days(30), [orders, shipping])).not.toThrow();
    expect(() => checkCleanupRetention(Duration.days(31), [orders, shipping])).not.toThrow();
  });

  it('is judged to the second', () => {
    expect(() => checkCleanupRetention(Duration.seconds(30 * 86_400 - 1), [shipping])).toThrow(/Shop\/Shipping/);
  });
});
