import { randomUUID } from 'node:crypto';
import { CreateSecretCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { localSecretsManagerClient, startSecretsManager, type RunningSecretsManager, type StartSecretsManagerOptions } from '../../local/secrets-manager/index.js';

/** The stand-in, the real SDK client on it, and a helper that creates secrets. */
export interface TestSecretsManager {
  secretsManager: RunningSecretsManager;
  client: SecretsManagerClient;
  /** Creates a secret of a name no other test uses, holding `value` (JSON when not a string); answers its ARN. */
  createSecret(prefix: string, value: unknown): Promise<string>;
  close(): Promise<void>;
}

/** A secret name no other test uses. */
export function secretName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** Starts the local Secrets Manager with the real `@aws-sdk/client-secrets-manager` pointed at it. */
export async function startTestSecretsManager(options: StartSecretsManagerOptions = {}): Promise<TestSecretsManager> {
  const secretsManager = await startSecretsManager(options);
  const client = localSecretsManagerClient(secretsManager.endpoint);
  return {
    secretsManager,
    client,
    createSecret: async (prefix, value) => {
      const SecretString = typeof value === 'string' ? value : JSON.stringify(value);
      const { ARN } = await client.send(new CreateSecretCommand({ Name: secretName(prefix), SecretString }));
      return ARN!;
    },
    close: async () => {
      client.destroy();
      await secretsManager.close();
    },
  };
}
