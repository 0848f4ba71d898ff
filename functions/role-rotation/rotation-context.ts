import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { ResumeWait } from '../inbox/data-api/index.js';
import type { Database, InboxLogger } from '../inbox/index.js';
import type { RotationRequest } from './rotation-event.js';
import type { RotationSettings } from './rotation-settings.js';

/** What a step works with: the request, the settings, and the two services it calls. */
export interface RotationContext {
  readonly request: RotationRequest;
  readonly settings: RotationSettings;
  readonly secretsManager: SecretsManagerClient;
  /**
   * The Data API on the settings' cluster and database, signed in with a secret: the owner's for
   * setSecret, a sign-in probe's for testSecret. `close()` leaves the client alone.
   */
  readonly signIn: (secretArn: string) => Database;
  /** How long to wait out a resuming cluster. */
  readonly wait: ResumeWait;
  readonly logger: InboxLogger;
}
