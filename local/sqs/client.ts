import { SQSClient } from '@aws-sdk/client-sqs';

/**
 * An `SQSClient` for the local emulator: its endpoint, its region, and fixed credentials (the
 * emulator does not check signatures), so no AWS configuration on the machine is read, with its
 * middleware stack resolved once per command (`cacheMiddleware`, as the local Data API client: add
 * middleware before the first call).
 *
 * @example
 * ```ts
 * const client = localSqsClient(sqs.endpoint);
 * await client.send(new GetQueueUrlCommand({ QueueName: 'orders' }));
 * ```
 */
export function localSqsClient(endpoint: string, region = 'us-east-1'): SQSClient {
  return new SQSClient({ cacheMiddleware: true, endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}
