import { SNSClient } from '@aws-sdk/client-sns';

/**
 * An `SNSClient` for the local SNS: its endpoint, its region, and fixed credentials (the emulator
 * does not check signatures), so no AWS configuration on the machine is read.
 *
 * @example
 * ```ts
 * const client = localSnsClient(sns.endpoint);
 * ```
 */
export function localSnsClient(endpoint: string, region = 'us-east-1'): SNSClient {
  return new SNSClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}
