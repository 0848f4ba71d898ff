import { randomUUID } from 'node:crypto';
import { STAGE, type SecretStore } from './secret-store.js';

/** The four steps of a rotation, in the order Secrets Manager invokes them. */
export const ROTATION_STEPS = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const;

/** The event Secrets Manager invokes a rotation function with, once per step. */
export interface RotationInvocation {
  readonly Step: (typeof ROTATION_STEPS)[number];
  /** The secret's ARN. */
  readonly SecretId: string;
  /** The id of the new (AWSPENDING) version. */
  readonly ClientRequestToken: string;
  /** Identifies this rotation to PutSecretValue (cross-account rotation). */
  readonly RotationToken: string;
}

/** Invokes the rotation function `functionArn` with one step's event; a rejection fails the rotation. */
export type RotationInvoker = (functionArn: string, event: RotationInvocation) => Promise<unknown>;

/** How a rotation the stand-in ran ended. */
export interface RotationRun {
  readonly secretArn: string;
  readonly versionId: string;
  /** The steps that were invoked, the failed one included. */
  readonly steps: readonly RotationInvocation['Step'][];
  /** Absent when every step succeeded. */
  readonly error?: unknown;
}

/**
 * Runs the rotations RotateSecret starts, as Secrets Manager does, after RotateSecret has answered:
 * the function's four steps in order, stopping at the first that fails (which leaves AWSPENDING on
 * the new version, so the next RotateSecret is refused until that rotation is retried). Once every
 * step succeeded it clears the AWSPENDING label, which a rotation function leaves on the version it
 * made current, and records the rotation date. Without an invoker nothing runs, and a test invokes
 * the steps itself.
 *
 * @example
 * ```ts
 * const runner = new RotationRunner(store, async (_arn, event) => handler(event));
 * runner.start(secret.arn, lambdaArn, versionId);
 * const [run] = await runner.settled(); // { steps: ['createSecret', ...], error: undefined }
 * ```
 */
export class RotationRunner {
  private readonly runs: Promise<RotationRun>[] = [];

  public constructor(private readonly store: SecretStore, private readonly invoke: RotationInvoker | undefined) {}

  /** Starts the rotation to version `versionId` with the function `functionArn`, unless no invoker was given. */
  public start(secretArn: string, functionArn: string, versionId: string): void {
    const invoke = this.invoke;
    if (invoke === undefined) return;
    const rotationToken = randomUUID();
    this.runs.push((async () => {
      // After the RotateSecret call has been answered, as the service invokes the function asynchronously.
      await new Promise((resolve) => setImmediate(resolve));
      const steps: RotationInvocation['Step'][] = [];
      try {
        for (const Step of ROTATION_STEPS) {
          steps.push(Step);
          await invoke(functionArn, { Step, SecretId: secretArn, ClientRequestToken: versionId, RotationToken: rotationToken });
        }
      } catch (error) {
        return { secretArn, versionId, steps, error };
      }
      const secret = this.store.find(secretArn);
      if (secret !== undefined) {
        secret.removeStage(STAGE.pending, versionId);
        secret.rotation.lastRotatedMs = this.store.now();
      }
      return { secretArn, versionId, steps };
    })());
  }

  /** Every rotation started so far, once each has ended. */
  public settled(): Promise<RotationRun[]> {
    return Promise.all(this.runs);
  }
}
