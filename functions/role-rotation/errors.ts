import { InboxError } from '../inbox/index.js';

/**
 * A rotation step could not go on. Secrets Manager records the step as failed and the secret keeps
 * its AWSCURRENT version, so the functions sign in as before; the message says what to change.
 *
 * @example
 * ```ts
 * await expect(handler(event)).rejects.toThrow(RotationError);
 * ```
 */
export class RotationError extends InboxError {
  public constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RotationError';
  }
}

/** The event or the function's environment is not one a rotation can run with. */
export class RotationConfigError extends RotationError {
  public constructor(message: string) {
    super(message);
    this.name = 'RotationConfigError';
  }
}

/**
 * The secret is not in a state the step can act on: rotation is off, the event's version is not the
 * pending one, or the pending version names a user the step must not touch.
 */
export class RotationStateError extends RotationError {
  public constructor(message: string) {
    super(message);
    this.name = 'RotationStateError';
  }
}

/** testSecret: the pending credentials do not sign in, or the user they sign in as lacks the role's privileges. */
export class PendingSignInError extends RotationError {
  public constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PendingSignInError';
  }
}
