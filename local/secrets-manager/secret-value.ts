import { type Input, optionalString } from './input.js';
import { invalidParameter } from './secrets-manager-errors.js';
import type { SecretValue, SecretVersion, StoredSecret } from './secret-store.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The SecretString or SecretBinary (base64) of a request: exactly one, or none when `optional`. */
export function secretValueOf(input: Input, optional: boolean): SecretValue | undefined {
  const secretString = optionalString(input, 'SecretString', 1, 65_536);
  const secretBinary = optionalString(input, 'SecretBinary', 1, 87_384);
  if (secretString !== undefined && secretBinary !== undefined) {
    throw invalidParameter('You can\'t specify both a binary secret value and a string secret value in the same secret.');
  }
  if (secretBinary !== undefined && !BASE64.test(secretBinary)) throw invalidParameter('SecretBinary must be base64-encoded bytes.');
  if (secretString === undefined && secretBinary === undefined) {
    if (optional) return undefined;
    throw invalidParameter('You must provide either SecretString or SecretBinary.');
  }
  return secretString !== undefined ? { secretString } : { secretBinary };
}

/** Whether a version already holds this very value. */
export function sameValue(version: SecretVersion, value: SecretValue): boolean {
  return version.value?.secretString === value.secretString && version.value?.secretBinary === value.secretBinary;
}

/** A version's value as the output members carry it. */
export function valueMembers(value: SecretValue): Record<string, string> {
  return value.secretString !== undefined ? { SecretString: value.secretString } : { SecretBinary: value.secretBinary! };
}

/** `{ ARN, Name }`, which every answer about a secret starts with. */
export function secretMembers(secret: StoredSecret): { ARN: string; Name: string } {
  return { ARN: secret.arn, Name: secret.name };
}
