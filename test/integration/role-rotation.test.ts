import { randomUUID } from 'node:crypto';
import { DescribeSecretCommand, PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRolePassword } from '../../functions/database-roles/index.js';
import { processBatch, type Outcome } from '../../functions/inbox/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { migrationsHandler } from '../../functions/migrate/index.js';
import { secretsManagerReader } from '../../functions/migrate/secrets-manager.js';
import { PendingSignInError, RotationStateError } from '../../functions/role-rotation/errors.js';
import { PENDING_PASSWORD } from '../../functions/role-rotation/create-secret.js';
import { shipOrderOptions } from '../../functions/order-worker/ship-order.js';
import { passwordCheckingDatabase, type FreshDatabase } from '../support/database.js';
import { seedOrders } from '../support/orders.js';
import { rotationWorld, signedInWith, type RotationWorld } from '../support/role-rotation.js';
import type { RotationInvocation, RotationRun } from '../../local/secrets-manager/index.js';
import { KIT_MIGRATIONS_DIR, migrationsHash } from '../../lib/database/migration-folders.js';
import { LOCAL_DATA_API_TARGET } from '../../local/data-api/index.js';
import { REFERENCE_MIGRATIONS_DIR } from '../../demo/reference-database.js';
import { migrationsEvent } from '../support/migrations-event.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';
import { thrown } from '../support/thrown.js';

// Passwords are what this file checks: a server of its own, whose roles (order_worker and its twin
// order_worker_clone, made as the reference stack's migrate function makes them) only this file changes.
let target: FreshDatabase;
let world: RotationWorld;

beforeAll(async () => {
  target = await passwordCheckingDatabase();
  world = await rotationWorld(target);
});

afterAll(async () => {
  await world?.close();
  await target?.close();
});

/** The worker, signed in with its secret through the Data API, ships one new order: what it must keep doing. */
async function workerShips(secretArn: string, on: RotationWorld = world): Promise<Outcome['kind'][]> {
  const [orderId] = await seedOrders(target.pool, 1);
  const outcomes: Outcome[] = [];
  await processBatch(sqsEvent(sqsRecord({ orderId }, { key: `ship-${orderId}` })), lambdaContext(),
    shipOrderOptions(signedInWith(on, secretArn), { onOutcome: (outcome) => outcomes.push(outcome) }));
  return outcomes.map((outcome) => outcome.kind);
}

/** A worker secret with a rotation started on it, run up to (not including) `upTo`. */
async function rotationUpTo(upTo: 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret' | 'done', on: RotationWorld = world) {
  const secret = await on.workerSecret();
  const token = await on.rotate(secret.arn);
  for (const step of ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const) {
    if (step === upTo) break;
    await on.step(step, secret.arn, token);
  }
  return { ...secret, token };
}

describe('createSecret: a pending version for the role\'s other login', () => {
  it('holds the twin, a new password from GetRandomPassword and the secret\'s other fields; AWSCURRENT is untouched', async () => {
    const { arn, password, token } = await rotationUpTo('setSecret');
    const pending = await world.credentials(arn, { VersionStage: 'AWSPENDING', VersionId: token });
    expect(pending).toMatchObject({ username: 'order_worker_clone', engine: 'postgres', dbname: world.database });
    expect(pending.password).toHaveLength(PENDING_PASSWORD.PasswordLength);
    expect([...pending.password].filter((character) => PENDING_PASSWORD.ExcludeCharacters.includes(character))).toEqual([]);
    expect(pending.password).not.toBe(password);
    expect(await world.credentials(arn)).toMatchObject({ username: 'order_worker', password });
    expect(world.secrets.secretsManager.stats().calls.GetRandomPassword).toBeGreaterThan(0);
  });

  it('run again, leaves the pending version as the first run put it', async () => {
    const { arn, token } = await rotationUpTo('setSecret');
    const first = await world.credentials(arn, { VersionId: token });
    await world.step('createSecret', arn, token);
    expect(await world.credentials(arn, { VersionId: token })).toEqual(first);
  });
});

describe('setSecret: the pending user\'s password, set as the owner, never the current user\'s', () => {
  it('lets the twin sign in with the pending password while the worker keeps signing in with AWSCURRENT', async () => {
    const { arn, password, token } = await rotationUpTo('testSecret');
    const pending = await world.credentials(arn, { VersionId: token });
    expect(await world.signsIn('order_worker_clone', pending.password)).toBe(true);
    // The window between setSecret and finishSecret: the worker signs in as before.
    expect(await world.signsIn('order_worker', password)).toBe(true);
    expect(await world.whoAmI(arn)).toBe('order_worker');
    expect(await workerShips(arn)).toEqual(['processed']);
  });

  it('run again, is harmless: the pending password still signs in', async () => {
    const { arn, token } = await rotationUpTo('testSecret');
    await world.step('setSecret', arn, token);
    expect(await world.signsIn('order_worker_clone', (await world.credentials(arn, { VersionId: token })).password)).toBe(true);
  });

  it('refuses a pending version for the user the worker signs in with, which would lock the worker out', async () => {
    const { arn, password } = await world.workerSecret();
    const token = await world.rotate(arn);
    await world.secrets.client.send(new PutSecretValueCommand({
      SecretId: arn, ClientRequestToken: token, VersionStages: ['AWSPENDING'], SecretString: JSON.stringify({ username: 'order_worker', password: 'would-lock-the-worker-out' }),
    }));
    const error = await thrown(world.step('setSecret', arn, token));
    expect(error).toBeInstanceOf(RotationStateError);
    expect(error.message).toMatch(/is for order_worker, but the functions sign in as order_worker, so the password to change is order_worker_clone's/);
    expect(await world.signsIn('order_worker', password)).toBe(true);
  });
});

describe('testSecret: the pending version signs in through the Data API', () => {
  it('signs in as the twin through a short-lived secret, which it deletes', async () => {
    const { arn, token } = await rotationUpTo('testSecret');
    const before = world.secrets.secretsManager.stats().calls;
    await world.step('testSecret', arn, token);
    const after = world.secrets.secretsManager.stats().calls;
    expect((after.CreateSecret ?? 0) - (before.CreateSecret ?? 0)).toBe(1);
    expect((after.DeleteSecret ?? 0) - (before.DeleteSecret ?? 0)).toBe(1);
    const probe = await thrown(world.secrets.client.send(new DescribeSecretCommand({ SecretId: `sqs-inbox/rotation-probe/test/${token}` })));
    expect(probe.name).toBe('ResourceNotFoundException');
  });

  it('run again, is harmless', async () => {
    const { arn, token } = await rotationUpTo('testSecret');
    await world.step('testSecret', arn, token);
    await world.step('testSecret', arn, token);
  });

  it('run again while Secrets Manager still deletes the last probe, fails with a reason, and passes once it is deleted', async () => {
    let nowMs = Date.now();
    const slow = await rotationWorld(target, { secretsManager: { forcedDeletionMs: 10_000, now: () => nowMs } });
    try {
      const { arn, token } = await rotationUpTo('testSecret', slow);
      await slow.step('testSecret', arn, token);
      const early = await thrown(slow.step('testSecret', arn, token));
      expect(early).toBeInstanceOf(RotationStateError);
      expect(early.message).toMatch(/The sign-in probe .* is still being deleted by an earlier attempt .*: the next retry of testSecret can create it/);
      nowMs += 10_000;
      await slow.step('testSecret', arn, token);
      await slow.step('finishSecret', arn, token);
      expect(await slow.whoAmI(arn)).toBe('order_worker_clone');
    } finally {
      await slow.close();
    }
  });

  it('fails when the pending password was never set, leaving AWSCURRENT signing in and no probe behind', async () => {
    const { arn, password, token } = await rotationUpTo('setSecret');
    // Another password on the twin than the pending one, as if setSecret had not run for this version.
    await setRolePassword(pgDatabase({ pool: target.pool }), 'order_worker_clone', 'not-the-pending-password');
    const error = await thrown(world.step('testSecret', arn, token));
    expect(error).toBeInstanceOf(PendingSignInError);
    expect(error.message).toMatch(/The pending password of order_worker_clone does not sign in through the Data API \(BadRequestException: FATAL: password authentication failed/);
    expect(await world.credentials(arn)).toMatchObject({ username: 'order_worker', password });
    expect(await workerShips(arn)).toEqual(['processed']);
    const probe = await thrown(world.secrets.client.send(new DescribeSecretCommand({ SecretId: `sqs-inbox/rotation-probe/test/${token}` })));
    expect(probe.name).toBe('ResourceNotFoundException');
  });

  it('fails when the twin signs in without the role\'s privileges', async () => {
    const { arn, token } = await rotationUpTo('testSecret');
    await target.pool.query('REVOKE order_worker FROM order_worker_clone');
    try {
      const error = await thrown(world.step('testSecret', arn, token));
      expect(error).toBeInstanceOf(PendingSignInError);
      expect(error.message).toMatch(/order_worker_clone signs in but lacks the privileges of order_worker: grant them with GRANT order_worker TO order_worker_clone/);
    } finally {
      await target.pool.query('GRANT order_worker TO order_worker_clone');
    }
  });
});

describe('finishSecret: the pending version becomes current', () => {
  it('moves AWSCURRENT, AWSPREVIOUS follows, and the worker signs in as the twin from its next call', async () => {
    const { arn, password, token } = await rotationUpTo('finishSecret');
    const previous = Object.keys(await world.stages(arn)).find((id) => id !== token)!;
    await world.step('finishSecret', arn, token);
    expect(await world.stages(arn)).toEqual({ [previous]: ['AWSPREVIOUS'], [token]: expect.arrayContaining(['AWSCURRENT']) });
    expect(await world.whoAmI(arn)).toBe('order_worker_clone');
    expect(await workerShips(arn)).toEqual(['processed']);
    // AWSPREVIOUS keeps signing in until the next rotation changes its password.
    expect(await world.signsIn('order_worker', password)).toBe(true);
  });

  it('run again, and any step after it, does nothing', async () => {
    const { arn, token } = await rotationUpTo('done');
    const stages = await world.stages(arn);
    const current = await world.credentials(arn);
    for (const step of ['finishSecret', 'createSecret', 'setSecret', 'testSecret', 'finishSecret']) await world.step(step, arn, token);
    expect(await world.stages(arn)).toEqual(stages);
    expect(await world.signsIn(current.username, current.password)).toBe(true);
  });
});

describe('the checks before every step', () => {
  it('refuses a secret that is not enabled for rotation', async () => {
    const { arn } = await world.workerSecret();
    const error = await thrown(world.step('createSecret', arn, randomUUID()));
    expect(error).toBeInstanceOf(RotationStateError);
    expect(error.message).toMatch(/is not enabled for rotation/);
  });

  it('refuses a token that is not the pending version', async () => {
    const { arn } = await world.workerSecret();
    await world.rotate(arn);
    await expect(world.step('createSecret', arn, randomUUID())).rejects.toThrow(/has no labelled version/);
  });

  it('refuses a secret of another user, before any password is set', async () => {
    const arn = await world.secrets.createSecret('owner-copy', await world.credentials(world.ownerSecretArn));
    const token = await world.rotate(arn);
    await expect(world.step('createSecret', arn, token)).rejects.toThrow(/holds the username .*, not order_worker or order_worker_clone: give the role its own secret/);
  });

  it('never logs a password', async () => {
    const { arn, password, token } = await rotationUpTo('done');
    const pending = await world.credentials(arn, { VersionId: token });
    const logged = JSON.stringify(world.logged);
    expect(world.logged.length).toBeGreaterThan(0);
    for (const secret of [password, pending.password]) expect(logged).not.toContain(secret);
  });
});

describe('rotations run by Secrets Manager, end to end', () => {
  let automatic: RotationWorld;
  /** What the worker did before each step: the step, whom it signed in as, the outcome of its message. */
  const observed: { step: string; user: string | undefined; outcomes: Outcome['kind'][] }[] = [];
  let watched = '';

  beforeAll(async () => {
    automatic = await rotationWorld(target, {
      automatic: true,
      beforeStep: async (event: RotationInvocation) => {
        if (event.SecretId !== watched) return;
        observed.push({ step: event.Step, user: await automatic.whoAmI(watched), outcomes: await workerShips(watched, automatic) });
      },
    });
  });

  afterAll(async () => {
    await automatic?.close();
  });

  /** Rotates the secret through Secrets Manager, which runs the four steps: how the rotation ended. */
  async function rotated(secretArn: string): Promise<RotationRun> {
    await automatic.rotate(secretArn);
    return (await automatic.secrets.secretsManager.rotations()).at(-1)!;
  }

  it('keep the worker signing in through every step of two rotations; the second retires the first password', async () => {
    const p0 = await automatic.workerSecret();
    watched = p0.arn;
    observed.length = 0;

    expect((await rotated(p0.arn)).error).toBeUndefined();
    const p1 = await automatic.credentials(p0.arn);
    expect(p1.username).toBe('order_worker_clone');
    expect(await automatic.whoAmI(p0.arn)).toBe('order_worker_clone');
    expect(await automatic.signsIn('order_worker', p0.password)).toBe(true);

    expect((await rotated(p0.arn)).error).toBeUndefined();
    const p2 = await automatic.credentials(p0.arn);
    expect(p2.username).toBe('order_worker');
    expect(await automatic.whoAmI(p0.arn)).toBe('order_worker');
    // The second rotation retires the first password; the first rotation's, now AWSPREVIOUS, still signs in.
    expect(await automatic.signsIn('order_worker', p0.password)).toBe(false);
    expect(await automatic.signsIn('order_worker', p2.password)).toBe(true);
    expect(await automatic.signsIn('order_worker_clone', p1.password)).toBe(true);

    expect(observed.map(({ step, user }) => [step, user])).toEqual([
      ['createSecret', 'order_worker'], ['setSecret', 'order_worker'], ['testSecret', 'order_worker'], ['finishSecret', 'order_worker'],
      ['createSecret', 'order_worker_clone'], ['setSecret', 'order_worker_clone'], ['testSecret', 'order_worker_clone'], ['finishSecret', 'order_worker_clone'],
    ]);
    expect(observed.flatMap(({ outcomes }) => outcomes)).toEqual(Array(8).fill('processed'));
  });

  it('leave AWSCURRENT working when testSecret fails in the middle, and finish when Secrets Manager retries the step', async () => {
    const p0 = await automatic.workerSecret();
    watched = p0.arn;
    await target.pool.query('REVOKE order_worker FROM order_worker_clone');
    let token: string;
    try {
      const failed = await rotated(p0.arn);
      token = failed.versionId;
      expect(failed.steps).toEqual(['createSecret', 'setSecret', 'testSecret']);
      expect(failed.error).toBeInstanceOf(PendingSignInError);
      expect(await automatic.credentials(p0.arn)).toMatchObject({ username: 'order_worker', password: p0.password });
      expect(await automatic.whoAmI(p0.arn)).toBe('order_worker');
      expect(await workerShips(p0.arn, automatic)).toEqual(['processed']);
      await expect(automatic.rotate(p0.arn)).rejects.toThrow(/previous rotation isn't complete/);
    } finally {
      await target.pool.query('GRANT order_worker TO order_worker_clone');
    }
    await automatic.step('testSecret', p0.arn, token);
    await automatic.step('finishSecret', p0.arn, token);
    expect(await automatic.whoAmI(p0.arn)).toBe('order_worker_clone');
    expect(await workerShips(p0.arn, automatic)).toEqual(['processed']);
  });

  it('leave a deploy working: the migrate function sets the password of the login the secret holds now', async () => {
    const p0 = await automatic.workerSecret();
    expect((await rotated(p0.arn)).error).toBeUndefined();
    const roles = JSON.stringify({ order_worker: { secretArn: p0.arn, access: 'consumer' } });
    Object.assign(process.env, {
      CLUSTER_ARN: LOCAL_DATA_API_TARGET.resourceArn, SECRET_ARN: automatic.ownerSecretArn, DATABASE_NAME: automatic.database,
      DATABASE_ROLES: roles, AWS_ENDPOINT_URL_RDS_DATA: automatic.api.endpoint, AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', KIT_MIGRATIONS_DIR, MIGRATIONS_DIR: REFERENCE_MIGRATIONS_DIR,
    });
    const properties = { MigrationsHash: migrationsHash(REFERENCE_MIGRATIONS_DIR), ClusterArn: LOCAL_DATA_API_TARGET.resourceArn, DatabaseName: automatic.database, Roles: roles };
    const response = await migrationsHandler({ readSecret: secretsManagerReader(automatic.secrets.client) })(
      migrationsEvent('Update', properties, { physicalResourceId: `inbox-migrations:${automatic.database}`, oldProperties: properties }), lambdaContext(300_000));

    expect(response.Data?.Roles).toBe('order_worker_clone');
    expect(await automatic.whoAmI(p0.arn)).toBe('order_worker_clone');
    expect(await workerShips(p0.arn, automatic)).toEqual(['processed']);
    expect(await automatic.signsIn('order_worker', p0.password)).toBe(true);
  });
});
