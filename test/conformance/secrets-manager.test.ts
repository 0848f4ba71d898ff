import net from 'node:net';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetRandomPasswordCommand,
  GetSecretValueCommand,
  InvalidParameterException,
  InvalidRequestException,
  PutSecretValueCommand,
  ResourceExistsException,
  ResourceNotFoundException,
  RotateSecretCommand,
  UpdateSecretVersionStageCommand,
  type GetRandomPasswordCommandInput,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROTATION_STEPS, startSecretsManager, localSecretsManagerClient, type RotationInvocation } from '../../local/secrets-manager/index.js';
import { secretName, startTestSecretsManager, type TestSecretsManager } from '../support/secrets-manager.js';
import { thrown } from '../support/thrown.js';

let local: TestSecretsManager;

beforeAll(async () => {
  local = await startTestSecretsManager();
});

afterAll(async () => {
  await local.close();
});

const token = (n: number) => `${String(n).padStart(8, '0')}-1111-4111-8111-111111111111`;
const stagesOf = async (SecretId: string) => (await local.client.send(new DescribeSecretCommand({ SecretId }))).VersionIdsToStages ?? {};
const valueOf = async (SecretId: string, select: { VersionId?: string; VersionStage?: string } = {}) =>
  (await local.client.send(new GetSecretValueCommand({ SecretId, ...select }))).SecretString;
const currentVersionOf = async (SecretId: string) => Object.entries(await stagesOf(SecretId)).find(([, stages]) => stages.includes('AWSCURRENT'))![0];

async function rawCall(target: string | undefined, body: string): Promise<{ status: number; json: Record<string, unknown>; errorType: string | null }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-amz-json-1.1' };
  if (target !== undefined) headers['x-amz-target'] = target;
  const response = await fetch(`${local.secretsManager.endpoint}/`, { method: 'POST', headers, body });
  return { status: response.status, json: await response.json() as Record<string, unknown>, errorType: response.headers.get('x-amzn-errortype') };
}

describe('the server: AWS JSON 1.1 on 127.0.0.1 only, errors as the service sends them', () => {
  it('listens on 127.0.0.1 and nowhere else on the machine', async () => {
    const { hostname, port } = new URL(local.secretsManager.endpoint);
    expect(hostname).toBe('127.0.0.1');
    const elsewhere = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '::1', port: Number(port) });
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    expect(elsewhere).toBe(false);
  });

  it('names an error in the x-amzn-ErrorType header and in the body\'s __type, with HTTP 400', async () => {
    const answer = await rawCall('secretsmanager.GetSecretValue', JSON.stringify({ SecretId: 'nothing-here' }));
    expect(answer).toEqual({
      status: 400,
      errorType: 'ResourceNotFoundException',
      json: { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." },
    });
  });

  it('which the SDK maps to its exception class', async () => {
    const error = await thrown(local.client.send(new GetSecretValueCommand({ SecretId: 'nothing-here' })));
    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect(error.message).toBe("Secrets Manager can't find the specified secret.");
    expect(error.$metadata?.httpStatusCode).toBe(400);
  });

  it('answers an unknown operation and a body that is not JSON, and serves on', async () => {
    expect((await rawCall('secretsmanager.ListSecretVersionIds', '{}')).errorType).toBe('UnknownOperationException');
    expect((await rawCall(undefined, '{}')).errorType).toBe('UnknownOperationException');
    expect((await rawCall('secretsmanager.GetSecretValue', '{not json')).errorType).toBe('SerializationException');
    expect(await valueOf(await local.createSecret('after-errors', 'still serving'))).toBe('still serving');
  });

  it('checks members as the service\'s input validation does', async () => {
    const arn = await local.createSecret('validation', 'v');
    const error = await thrown(local.client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'w', ClientRequestToken: 'short' })));
    expect(error.name).toBe('ValidationException');
    expect(error.message).toMatch(/clientRequestToken|ClientRequestToken/);
  });
});

describe('GetSecretValue: the version by staging label, by id, or both', () => {
  it('answers AWSCURRENT when asked for neither, with the version\'s id and stages', async () => {
    const { ARN } = await local.client.send(new CreateSecretCommand({ Name: secretName('get'), SecretString: 'one', ClientRequestToken: token(1) }));
    const answer = await local.client.send(new GetSecretValueCommand({ SecretId: ARN }));
    expect(answer).toMatchObject({ ARN, SecretString: 'one', VersionId: token(1), VersionStages: ['AWSCURRENT'] });
    expect(answer.CreatedDate).toBeInstanceOf(Date);
  });

  it('finds a secret by its ARN, its name, and its ARN without the random suffix', async () => {
    const name = secretName('names');
    const { ARN } = await local.client.send(new CreateSecretCommand({ Name: name, SecretString: 'x' }));
    expect(ARN).toMatch(new RegExp(`^arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}-[A-Za-z0-9]{6}$`));
    for (const id of [ARN!, name, ARN!.slice(0, -7)]) expect(await valueOf(id)).toBe('x');
  });

  it('refuses a stage no version has, a version that does not exist, and a stage the version does not carry', async () => {
    const arn = await local.createSecret('missing', 'x');
    const noStage = await thrown(valueOf(arn, { VersionStage: 'AWSPENDING' }));
    expect(noStage).toBeInstanceOf(ResourceNotFoundException);
    expect(noStage.message).toMatch(/staging label: AWSPENDING/);
    expect(await thrown(valueOf(arn, { VersionId: token(99) }))).toBeInstanceOf(ResourceNotFoundException);
    const mismatch = await thrown(valueOf(arn, { VersionId: await currentVersionOf(arn), VersionStage: 'AWSPREVIOUS' }));
    expect(mismatch).toBeInstanceOf(InvalidRequestException);
  });

  it('still finds a version by id once it has lost every label', async () => {
    const arn = await local.createSecret('deprecated', 'first');
    const first = await currentVersionOf(arn);
    await local.client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'second' }));
    await local.client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'third' }));
    expect(Object.keys(await stagesOf(arn))).not.toContain(first);
    expect(await valueOf(arn, { VersionId: first })).toBe('first');
  });
});

describe('PutSecretValue: a new version, idempotent by ClientRequestToken', () => {
  it('makes the new version AWSCURRENT by default and moves AWSPREVIOUS to the version it replaced', async () => {
    const arn = await local.createSecret('put', 'v1');
    const v1 = await currentVersionOf(arn);
    const { VersionId, VersionStages } = await local.client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'v2', ClientRequestToken: token(2) }));
    expect({ VersionId, VersionStages }).toEqual({ VersionId: token(2), VersionStages: ['AWSCURRENT'] });
    expect(await stagesOf(arn)).toEqual({ [v1]: ['AWSPREVIOUS'], [token(2)]: ['AWSCURRENT'] });
    await local.client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'v3', ClientRequestToken: token(3) }));
    expect(await stagesOf(arn)).toEqual({ [token(2)]: ['AWSPREVIOUS'], [token(3)]: ['AWSCURRENT'] });
  });

  it('with VersionStages, labels only the new version and leaves AWSCURRENT where it is', async () => {
    const arn = await local.createSecret('staged', 'v1');
    const v1 = await currentVersionOf(arn);
    await local.client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'next', ClientRequestToken: token(4), VersionStages: ['AWSPENDING'] }));
    expect(await stagesOf(arn)).toEqual({ [v1]: ['AWSCURRENT'], [token(4)]: ['AWSPENDING'] });
    expect(await valueOf(arn)).toBe('v1');
    expect(await valueOf(arn, { VersionStage: 'AWSPENDING' })).toBe('next');
  });

  it('repeated with the same token and value changes nothing; with another value it is refused', async () => {
    const arn = await local.createSecret('idempotent', 'v1');
    const put = (SecretString: string) => local.client.send(new PutSecretValueCommand({ SecretId: arn, SecretString, ClientRequestToken: token(5), VersionStages: ['AWSPENDING'] }));
    await put('same');
    const before = await stagesOf(arn);
    expect((await put('same')).VersionId).toBe(token(5));
    expect(await stagesOf(arn)).toEqual(before);
    const conflict = await thrown(put('different'));
    expect(conflict).toBeInstanceOf(ResourceExistsException);
    expect(await valueOf(arn, { VersionId: token(5) })).toBe('same');
  });

  it('makes the first version of a secret AWSCURRENT whatever stages it names', async () => {
    const { ARN } = await local.client.send(new CreateSecretCommand({ Name: secretName('empty') }));
    await local.client.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'first', ClientRequestToken: token(6), VersionStages: ['AWSPENDING'] }));
    expect(await stagesOf(ARN!)).toEqual({ [token(6)]: ['AWSPENDING', 'AWSCURRENT'] });
  });

  it('needs exactly one of SecretString and SecretBinary', async () => {
    const arn = await local.createSecret('value', 'v');
    expect(await thrown(local.client.send(new PutSecretValueCommand({ SecretId: arn })))).toBeInstanceOf(InvalidParameterException);
    expect(await thrown(local.client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'a', SecretBinary: Buffer.from('b') }))))
      .toBeInstanceOf(InvalidParameterException);
    await local.client.send(new PutSecretValueCommand({ SecretId: arn, SecretBinary: Buffer.from([0, 1, 2]) }));
    expect(Buffer.from((await local.client.send(new GetSecretValueCommand({ SecretId: arn }))).SecretBinary!)).toEqual(Buffer.from([0, 1, 2]));
  });
});

describe('DescribeSecret: the labelled versions and the rotation\'s state', () => {
  it('lists only versions with labels, and leaves RotationEnabled out until a rotation is configured', async () => {
    const arn = await local.createSecret('describe', 'v1');
    const described = await local.client.send(new DescribeSecretCommand({ SecretId: arn }));
    expect(described.RotationEnabled).toBeUndefined();
    expect(Object.values(described.VersionIdsToStages!)).toEqual([['AWSCURRENT']]);
    expect(described.CreatedDate).toBeInstanceOf(Date);
  });

  it('refuses a secret that does not exist', async () => {
    expect(await thrown(local.client.send(new DescribeSecretCommand({ SecretId: 'nothing-here' })))).toBeInstanceOf(ResourceNotFoundException);
  });
});

describe('UpdateSecretVersionStage: moving a label, guarded by RemoveFromVersionId', () => {
  async function pendingSecret() {
    const arn = await local.createSecret('stages', 'v1');
    const v1 = await currentVersionOf(arn);
    await local.client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'v2', ClientRequestToken: token(7), VersionStages: ['AWSPENDING'] }));
    return { arn, v1, v2: token(7) };
  }

  it('moves AWSCURRENT to MoveToVersionId and AWSPREVIOUS to the version it left, leaving AWSPENDING where it is', async () => {
    const { arn, v1, v2 } = await pendingSecret();
    await local.client.send(new UpdateSecretVersionStageCommand({ SecretId: arn, VersionStage: 'AWSCURRENT', MoveToVersionId: v2, RemoveFromVersionId: v1 }));
    expect(await stagesOf(arn)).toEqual({ [v1]: ['AWSPREVIOUS'], [v2]: ['AWSPENDING', 'AWSCURRENT'] });
    expect(await valueOf(arn)).toBe('v2');
  });

  it('refuses to move a label held by another version unless RemoveFromVersionId names that version', async () => {
    const { arn, v1, v2 } = await pendingSecret();
    const missing = await thrown(local.client.send(new UpdateSecretVersionStageCommand({ SecretId: arn, VersionStage: 'AWSCURRENT', MoveToVersionId: v2 })));
    expect(missing).toBeInstanceOf(InvalidParameterException);
    expect(missing.message).toContain(`currently attached to version ${v1}`);
    const wrong = await thrown(local.client.send(new UpdateSecretVersionStageCommand({ SecretId: arn, VersionStage: 'AWSCURRENT', MoveToVersionId: v2, RemoveFromVersionId: v2 })));
    expect(wrong).toBeInstanceOf(InvalidParameterException);
    expect(await valueOf(arn)).toBe('v1');
  });

  it('takes a label off with RemoveFromVersionId alone, but never AWSCURRENT', async () => {
    const { arn, v1, v2 } = await pendingSecret();
    await local.client.send(new UpdateSecretVersionStageCommand({ SecretId: arn, VersionStage: 'AWSPENDING', RemoveFromVersionId: v2 }));
    expect(await stagesOf(arn)).toEqual({ [v1]: ['AWSCURRENT'] });
    expect(await thrown(local.client.send(new UpdateSecretVersionStageCommand({ SecretId: arn, VersionStage: 'AWSCURRENT', RemoveFromVersionId: v1 }))))
      .toBeInstanceOf(InvalidParameterException);
  });

  it('refuses a version that does not exist', async () => {
    const { arn, v1 } = await pendingSecret();
    expect(await thrown(local.client.send(new UpdateSecretVersionStageCommand({ SecretId: arn, VersionStage: 'AWSCURRENT', MoveToVersionId: token(98), RemoveFromVersionId: v1 }))))
      .toBeInstanceOf(ResourceNotFoundException);
  });
});

describe('GetRandomPassword', () => {
  const password = async (input: GetRandomPasswordCommandInput = {}) => (await local.client.send(new GetRandomPasswordCommand(input))).RandomPassword!;

  it('gives 32 characters by default, of letters, digits and punctuation, without spaces', async () => {
    const drawn = await password();
    expect(drawn).toHaveLength(32);
    expect(drawn).toMatch(/^[\x21-\x7e]+$/);
  });

  it('never uses an excluded character, and includes each type left', async () => {
    const exclude = ' %+~`#$&*()|[]{}:;<>?!\'/@"\\';
    for (let i = 0; i < 20; i += 1) {
      const drawn = await password({ PasswordLength: 12, ExcludeCharacters: exclude });
      expect(drawn).toHaveLength(12);
      expect([...drawn].filter((character) => exclude.includes(character))).toEqual([]);
      for (const type of [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/]) expect(drawn).toMatch(type);
    }
  });

  it('keeps to the types asked for', async () => {
    expect(await password({ PasswordLength: 40, ExcludePunctuation: true, ExcludeUppercase: true })).toMatch(/^[a-z0-9]{40}$/);
    expect(await password({ PasswordLength: 40, ExcludeNumbers: true, ExcludeLowercase: true, ExcludePunctuation: true, IncludeSpace: true })).toMatch(/^[A-Z ]{40}$/);
  });

  it('refuses a request that leaves no character, or too few places for one of each type', async () => {
    expect(await thrown(password({ ExcludeLowercase: true, ExcludeUppercase: true, ExcludeNumbers: true, ExcludePunctuation: true })))
      .toBeInstanceOf(InvalidParameterException);
    expect(await thrown(password({ PasswordLength: 3 }))).toBeInstanceOf(InvalidParameterException);
    expect((await thrown(password({ PasswordLength: 0 }))).name).toBe('ValidationException');
  });
});

describe('CreateSecret and DeleteSecret', () => {
  it('refuses a name in use, and repeats a create with the same token and value without harm', async () => {
    const Name = secretName('create');
    const create = (SecretString: string) => local.client.send(new CreateSecretCommand({ Name, SecretString, ClientRequestToken: token(8) }));
    const { ARN } = await create('v');
    expect((await create('v')).ARN).toBe(ARN);
    expect(await thrown(create('other'))).toBeInstanceOf(ResourceExistsException);
  });

  it('with a recovery window, refuses every use of the secret and its name until it is gone', async () => {
    const Name = secretName('window');
    const { ARN } = await local.client.send(new CreateSecretCommand({ Name, SecretString: 'v' }));
    const { DeletionDate } = await local.client.send(new DeleteSecretCommand({ SecretId: ARN, RecoveryWindowInDays: 7 }));
    expect(DeletionDate!.getTime() - Date.now()).toBeGreaterThan(6 * 24 * 3600 * 1000);
    expect(await thrown(valueOf(ARN!))).toBeInstanceOf(InvalidRequestException);
    expect(await thrown(local.client.send(new CreateSecretCommand({ Name, SecretString: 'v' })))).toBeInstanceOf(InvalidRequestException);
    expect((await local.client.send(new DescribeSecretCommand({ SecretId: ARN }))).DeletedDate).toBeInstanceOf(Date);
  });

  it('with ForceDeleteWithoutRecovery, holds the name until the deletion completes, as the service deletes asynchronously', async () => {
    let nowMs = Date.now();
    const slow = await startTestSecretsManager({ forcedDeletionMs: 5000, now: () => nowMs });
    try {
      const Name = secretName('async');
      const { ARN } = await slow.client.send(new CreateSecretCommand({ Name, SecretString: 'v' }));
      await slow.client.send(new DeleteSecretCommand({ SecretId: ARN, ForceDeleteWithoutRecovery: true }));
      expect(await thrown(slow.client.send(new GetSecretValueCommand({ SecretId: ARN })))).toBeInstanceOf(InvalidRequestException);
      const early = await thrown(slow.client.send(new CreateSecretCommand({ Name, SecretString: 'again' })));
      expect(early).toBeInstanceOf(InvalidRequestException);
      expect(early.message).toMatch(/already scheduled for deletion/);
      nowMs += 5000;
      expect(await thrown(slow.client.send(new GetSecretValueCommand({ SecretId: ARN })))).toBeInstanceOf(ResourceNotFoundException);
      await slow.client.send(new CreateSecretCommand({ Name, SecretString: 'again' }));
    } finally {
      await slow.close();
    }
  });

  it('with ForceDeleteWithoutRecovery, forgets the secret and frees its name', async () => {
    const Name = secretName('force');
    const { ARN } = await local.client.send(new CreateSecretCommand({ Name, SecretString: 'v' }));
    await local.client.send(new DeleteSecretCommand({ SecretId: ARN, ForceDeleteWithoutRecovery: true }));
    expect(await thrown(valueOf(ARN!))).toBeInstanceOf(ResourceNotFoundException);
    await local.client.send(new CreateSecretCommand({ Name, SecretString: 'again' }));
    expect(await valueOf(Name)).toBe('again');
    expect(await thrown(local.client.send(new DeleteSecretCommand({ SecretId: Name, ForceDeleteWithoutRecovery: true, RecoveryWindowInDays: 7 }))))
      .toBeInstanceOf(InvalidParameterException);
  });
});

describe('RotateSecret: an AWSPENDING version without a value, then the function\'s four steps', () => {
  const lambdaArn = 'arn:aws:lambda:us-east-1:123456789012:function:rotate';

  it('without an invoker, configures rotation and makes the placeholder a rotation function finds by its token', async () => {
    const arn = await local.createSecret('rotate', 'v1');
    const v1 = await currentVersionOf(arn);
    const { VersionId } = await local.client.send(new RotateSecretCommand({ SecretId: arn, RotationLambdaARN: lambdaArn, RotationRules: { AutomaticallyAfterDays: 30 } }));
    const described = await local.client.send(new DescribeSecretCommand({ SecretId: arn }));
    expect(described).toMatchObject({ RotationEnabled: true, RotationLambdaARN: lambdaArn, RotationRules: { AutomaticallyAfterDays: 30 } });
    expect(described.VersionIdsToStages).toEqual({ [v1]: ['AWSCURRENT'], [VersionId!]: ['AWSPENDING'] });
    // The createSecret step's probe: the placeholder has no value yet.
    expect(await thrown(valueOf(arn, { VersionId, VersionStage: 'AWSPENDING' }))).toBeInstanceOf(ResourceNotFoundException);
    // A second rotation is refused while this one has not finished.
    const again = await thrown(local.client.send(new RotateSecretCommand({ SecretId: arn })));
    expect(again).toBeInstanceOf(InvalidRequestException);
    expect(again.message).toMatch(/previous rotation isn't complete/);
  });

  it('refuses a secret with no rotation function configured or given', async () => {
    const arn = await local.createSecret('no-function', 'v1');
    expect(await thrown(local.client.send(new RotateSecretCommand({ SecretId: arn })))).toBeInstanceOf(InvalidRequestException);
  });

  it('with an invoker, runs the four steps in order, then clears AWSPENDING', async () => {
    const events: RotationInvocation[] = [];
    const secretsManager = await startSecretsManager({
      invokeRotation: async (functionArn, event) => {
        expect(functionArn).toBe(lambdaArn);
        events.push(event);
        if (event.Step === 'createSecret') await client.send(new PutSecretValueCommand({ SecretId: event.SecretId, ClientRequestToken: event.ClientRequestToken, SecretString: 'v2', VersionStages: ['AWSPENDING'], RotationToken: event.RotationToken }));
        if (event.Step === 'finishSecret') {
          await client.send(new UpdateSecretVersionStageCommand({ SecretId: event.SecretId, VersionStage: 'AWSCURRENT', MoveToVersionId: event.ClientRequestToken, RemoveFromVersionId: v1 }));
        }
      },
    });
    const client = localSecretsManagerClient(secretsManager.endpoint);
    let v1 = '';
    try {
      const { ARN, VersionId: first } = await client.send(new CreateSecretCommand({ Name: secretName('invoked'), SecretString: 'v1' }));
      v1 = first!;
      const { VersionId } = await client.send(new RotateSecretCommand({ SecretId: ARN, RotationLambdaARN: lambdaArn }));
      const [run] = await secretsManager.rotations();
      expect(run).toEqual({ secretArn: ARN, versionId: VersionId, steps: [...ROTATION_STEPS] });
      expect(events.map((event) => [event.Step, event.SecretId, event.ClientRequestToken])).toEqual(ROTATION_STEPS.map((step) => [step, ARN, VersionId]));
      const described = await client.send(new DescribeSecretCommand({ SecretId: ARN }));
      expect(described.VersionIdsToStages).toEqual({ [v1]: ['AWSPREVIOUS'], [VersionId!]: ['AWSCURRENT'] });
      expect(described.LastRotatedDate).toBeInstanceOf(Date);
    } finally {
      client.destroy();
      await secretsManager.close();
    }
  });

  it('stops at a failed step and keeps AWSPENDING on the new version', async () => {
    const secretsManager = await startSecretsManager({
      invokeRotation: async (_arn, event) => {
        if (event.Step === 'testSecret') throw new Error('the pending password does not sign in');
      },
    });
    const client = localSecretsManagerClient(secretsManager.endpoint);
    try {
      const { ARN } = await client.send(new CreateSecretCommand({ Name: secretName('failing'), SecretString: 'v1' }));
      const { VersionId } = await client.send(new RotateSecretCommand({ SecretId: ARN, RotationLambdaARN: lambdaArn }));
      const [run] = await secretsManager.rotations();
      expect(run!.steps).toEqual(['createSecret', 'setSecret', 'testSecret']);
      expect(String(run!.error)).toMatch(/does not sign in/);
      expect((await client.send(new DescribeSecretCommand({ SecretId: ARN }))).VersionIdsToStages![VersionId!]).toEqual(['AWSPENDING']);
      expect(await thrown(client.send(new RotateSecretCommand({ SecretId: ARN })))).toBeInstanceOf(InvalidRequestException);
    } finally {
      client.destroy();
      await secretsManager.close();
    }
  });
});
