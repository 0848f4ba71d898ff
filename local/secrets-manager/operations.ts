import type { Operation } from './operation-context.js';
import { randomPassword } from './random-password.js';
import { rotateSecret } from './rotation-operations.js';
import { createSecret, deleteSecret, describeSecret } from './secret-operations.js';
import { updateSecretVersionStage } from './stage-operations.js';
import { getSecretValue, putSecretValue } from './value-operations.js';

/** The operations the stand-in serves, by the name after `secretsmanager.` in `X-Amz-Target`. */
export const OPERATIONS: Readonly<Record<string, Operation>> = {
  CreateSecret: createSecret,
  DescribeSecret: describeSecret,
  DeleteSecret: deleteSecret,
  GetSecretValue: getSecretValue,
  PutSecretValue: putSecretValue,
  UpdateSecretVersionStage: updateSecretVersionStage,
  RotateSecret: rotateSecret,
  GetRandomPassword: (input) => ({ RandomPassword: randomPassword(input) }),
};
