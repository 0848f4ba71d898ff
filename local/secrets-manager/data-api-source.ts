import type { DataApiSecretSource } from '../data-api/secrets.js';
import { LocalConfigError } from '../errors.js';
import { SecretsManagerError } from './secrets-manager-errors.js';

/**
 * Where the local Data API reads the secrets it signs calls in with: the stand-in at `endpoint`,
 * asked over its wire protocol for each secret's AWSCURRENT version (GetSecretValue), as the service
 * asks Secrets Manager on every call. Made with `fetch`, not the SDK client, so the emulators need
 * no SDK package of Secrets Manager. A secret that does not exist reads as `undefined`; any other
 * error is thrown with the service's error name.
 *
 * @example
 * ```ts
 * const api = await startDataApi({ databaseUrl, secrets: secretsManagerSource(secretsManager.endpoint) });
 * ```
 */
export function secretsManagerSource(endpoint: string): DataApiSecretSource {
  return async (secretArn) => {
    const response = await fetch(`${endpoint}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' },
      body: JSON.stringify({ SecretId: secretArn, VersionStage: 'AWSCURRENT' }),
    });
    const body = await response.json() as Record<string, unknown>;
    if (response.ok) {
      if (typeof body['SecretString'] !== 'string') throw new LocalConfigError(`The secret ${secretArn} has no SecretString (a binary secret): store the credentials as a JSON SecretString.`);
      return body['SecretString'];
    }
    const type = response.headers.get('x-amzn-errortype') ?? String(body['__type']);
    if (type === 'ResourceNotFoundException') return undefined;
    throw new SecretsManagerError(type, `${type}: ${String(body['message'] ?? body['Message'] ?? '')}`, response.status);
  };
}
