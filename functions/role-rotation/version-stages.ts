import { RotationStateError } from './errors.js';

/** The staging labels a rotation moves. */
export const STAGE = { current: 'AWSCURRENT', pending: 'AWSPENDING' } as const;

/** What DescribeSecret says of a secret that a step needs. */
export interface SecretMetadata {
  readonly RotationEnabled?: boolean;
  readonly VersionIdsToStages?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Whether a step has work to do, from DescribeSecret, as AWS's rotation templates check it before
 * every step: rotation must be on (a secret never configured for rotation has no RotationEnabled,
 * which is refused as well), and the event's version must be labelled. A version that is already
 * AWSCURRENT means this rotation has finished and the step is a late retry: `done`. Otherwise it must
 * be AWSPENDING: `run`.
 *
 * @example
 * ```ts
 * stepToRun({ RotationEnabled: true, VersionIdsToStages: { [token]: ['AWSPENDING'] } }, token, arn) // 'run'
 * ```
 */
export function stepToRun(metadata: SecretMetadata, token: string, secretId: string): 'run' | 'done' {
  if (metadata.RotationEnabled !== true) {
    throw new RotationStateError(`The secret ${secretId} is not enabled for rotation: configure its rotation (a RotationSchedule) before invoking this function.`);
  }
  const stages = metadata.VersionIdsToStages?.[token];
  if (stages === undefined) {
    throw new RotationStateError(`The secret ${secretId} has no labelled version ${token}: the event's ClientRequestToken must be the rotation's new version.`);
  }
  if (stages.includes(STAGE.current)) return 'done';
  if (!stages.includes(STAGE.pending)) {
    throw new RotationStateError(`Version ${token} of the secret ${secretId} is not AWSPENDING (it is ${stages.join(', ') || 'unlabelled'}): it is not the version being rotated to.`);
  }
  return 'run';
}

/**
 * The version that holds AWSCURRENT.
 *
 * @example
 * ```ts
 * currentVersionOf({ a: ['AWSPREVIOUS'], b: ['AWSCURRENT'] }) // 'b'
 * ```
 */
export function currentVersionOf(versionIdsToStages: Readonly<Record<string, readonly string[]>>): string | undefined {
  return Object.entries(versionIdsToStages).find(([, stages]) => stages.includes(STAGE.current))?.[0];
}
