import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * A `SecretsManagerClient` for the local stand-in: its endpoint, its region, and fixed credentials
 * (the stand-in does not check signatures), so no AWS configuration on the machine is read.
 *
 * @example
 * ```ts
 * const client = localSecretsManagerClient(secretsManager.endpoint);
 * await client.send(new GetSecretValueCommand({ SecretId: arn }));
 * ```
 */
export function localSecretsManagerClient(endpoint: string, region = 'us-east-1'): SecretsManagerClient {
  return new SecretsManagerClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}
