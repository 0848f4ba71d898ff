import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { ReadSecret } from './role-credentials.js';

/**
 * `ReadSecret` on AWS Secrets Manager: the SecretString of the secret's current version. The client
 * is made on the first read, with the Lambda's region and credentials.
 *
 * @example
 * ```ts
 * const readSecret = secretsManagerReader();
 * const text = await readSecret(process.env.SECRET_ARN!);
 * ```
 */
export function secretsManagerReader(client?: SecretsManagerClient): ReadSecret {
  let sdk = client;
  return async (secretArn) => {
    sdk ??= new SecretsManagerClient({});
    const { SecretString } = await sdk.send(new GetSecretValueCommand({ SecretId: secretArn }));
    if (SecretString === undefined) throw new Error('The secret has no SecretString (a binary secret).');
    return SecretString;
  };
}
