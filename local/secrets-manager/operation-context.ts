import type { Input } from './input.js';
import type { RotationRunner } from './rotation-runner.js';
import type { SecretStore } from './secret-store.js';

/** What every operation is handed besides its input. */
export interface OperationContext {
  readonly store: SecretStore;
  readonly rotations: RotationRunner;
  /** How long a forced deletion takes to complete. */
  readonly forcedDeletionMs: number;
}

/** An operation: its input in, its output out, or a SecretsManagerError thrown. */
export type Operation = (input: Input, context: OperationContext) => Record<string, unknown>;
