import { RotationConfigError } from './errors.js';

/** The four steps of a rotation, by the names Secrets Manager invokes them with. */
export const ROTATION_STEP = {
  create: 'createSecret',
  set: 'setSecret',
  test: 'testSecret',
  finish: 'finishSecret',
} as const;

/** One of `createSecret | setSecret | testSecret | finishSecret`. */
export type RotationStep = (typeof ROTATION_STEP)[keyof typeof ROTATION_STEP];

/** What one invocation asks for. */
export interface RotationRequest {
  /** The secret's ARN (or name). */
  readonly secretId: string;
  /** The ClientRequestToken: the id of the rotation's new version. */
  readonly token: string;
  readonly step: RotationStep;
  /** Passed on to PutSecretValue, which checks it for cross-account rotation; absent in older events. */
  readonly rotationToken?: string;
}

// The user guide writes the steps as create_secret, set_secret, ...; events and AWS's templates use createSecret, ...
const STEPS: Readonly<Record<string, RotationStep>> = Object.fromEntries(Object.values(ROTATION_STEP)
  .flatMap((step) => [[step, step], [step.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`), step]]));

function member(event: Record<string, unknown>, name: string): string {
  const value = event[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new RotationConfigError(`The rotation event has no ${name}: this function is invoked by Secrets Manager with { Step, SecretId, ClientRequestToken }.`);
  }
  return value;
}

/**
 * The request in a rotation event, `{ Step, SecretId, ClientRequestToken, RotationToken? }`, as
 * Secrets Manager sends it; the step in either of its documented spellings (`createSecret` or
 * `create_secret`). Anything else is refused with a RotationConfigError.
 *
 * @example
 * ```ts
 * rotationRequestOf({ Step: 'setSecret', SecretId: arn, ClientRequestToken: token }) // { secretId: arn, token, step: 'setSecret' }
 * ```
 */
export function rotationRequestOf(event: unknown): RotationRequest {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new RotationConfigError('The rotation event is not an object: this function is invoked by Secrets Manager with { Step, SecretId, ClientRequestToken }.');
  }
  const fields = event as Record<string, unknown>;
  const stepName = member(fields, 'Step');
  const step = Object.hasOwn(STEPS, stepName) ? STEPS[stepName] : undefined;
  if (step === undefined) {
    throw new RotationConfigError(`The rotation event's Step ${JSON.stringify(stepName)} is none of ${Object.values(ROTATION_STEP).join(', ')}.`);
  }
  const rotationToken = fields['RotationToken'];
  return {
    secretId: member(fields, 'SecretId'),
    token: member(fields, 'ClientRequestToken'),
    step,
    ...(typeof rotationToken === 'string' && rotationToken !== '' ? { rotationToken } : {}),
  };
}
