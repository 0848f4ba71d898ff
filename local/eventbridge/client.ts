import { EventBridgeClient } from '@aws-sdk/client-eventbridge';

/**
 * An `EventBridgeClient` for the local EventBridge: its endpoint, its region, and fixed credentials
 * (the emulator does not check signatures), so no AWS configuration on the machine is read.
 *
 * @example
 * ```ts
 * const client = localEventBridgeClient(bus.endpoint);
 * ```
 */
export function localEventBridgeClient(endpoint: string, region = 'us-east-1'): EventBridgeClient {
  return new EventBridgeClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}
