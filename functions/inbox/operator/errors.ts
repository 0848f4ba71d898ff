import { InboxError } from '../errors.js';

/**
 * No kept message has that id: it was never kept, or the cleanup deleted it past its retention.
 *
 * @example
 * ```ts
 * await expect(replayKept(db, 999, { client })).rejects.toThrow(KeptMessageNotFoundError);
 * ```
 */
export class KeptMessageNotFoundError extends InboxError {
  public constructor(id: number) {
    super(`No kept message has id ${id}: check the id in kept_message; the cleanup deletes kept messages past KEPT_RETENTION_DAYS.`);
    this.name = 'KeptMessageNotFoundError';
  }
}

/**
 * A kept message that cannot be sent back as it was: a collision (its key is another body's), a
 * Kafka record (the kit sends to SQS only), or a body cut at the bound (what would go is not what came).
 * The message says what to do instead.
 *
 * @example
 * ```ts
 * await expect(replayKept(db, collisionId, { client })).rejects.toThrow(KeptReplayRefusedError);
 * ```
 */
export class KeptReplayRefusedError extends InboxError {
  public constructor(id: number, why: string) {
    super(`Kept message ${id} is not replayed: ${why}`);
    this.name = 'KeptReplayRefusedError';
  }
}

/**
 * The command line cannot do what it was asked: a wrong flag, a missing connection, a change
 * refused without `--yes`. The message is one sentence with the fix; the command exits 2.
 *
 * @example
 * ```ts
 * throw new OperatorCommandError('Unknown command "stats": run `sqs-inbox --help` for the list.');
 * ```
 */
export class OperatorCommandError extends InboxError {
  public constructor(message: string) {
    super(message);
    this.name = 'OperatorCommandError';
  }
}
