import { LocalStackError } from '../errors.js';

/**
 * An error as SNS answers it over the AWS Query protocol: an HTTP status and an XML
 * `<ErrorResponse><Error><Type>Sender|Receiver</Type><Code>..</Code><Message>..</Message></Error>`,
 * whose code the SDK's SNS client maps to its exception class (`NotFound` becomes
 * `NotFoundException`, `InvalidParameter` `InvalidParameterException`).
 */
export class SnsError extends LocalStackError {
  public constructor(
    public readonly code: string,
    message: string,
    public readonly status = 400,
    public readonly fault: 'Sender' | 'Receiver' = 'Sender',
  ) {
    super(message);
    this.name = code;
  }
}

export const topicNotFound = () => new SnsError('NotFound', 'Topic does not exist', 404);
export const invalidParameter = (reason: string) => new SnsError('InvalidParameter', `Invalid parameter: ${reason}`);
export const emptyBatch = () => new SnsError('EmptyBatchRequest', "The batch request doesn't contain any entries.");
export const tooManyEntries = () => new SnsError('TooManyEntriesInBatchRequest', 'The batch request contains more entries than permissible.');
export const invalidBatchEntryId = () => new SnsError('InvalidBatchEntryId', "The Id of a batch entry in a batch request doesn't abide by the specification.");
export const batchEntryIdsNotDistinct = () => new SnsError('BatchEntryIdsNotDistinct', 'Two or more batch entries in the request have the same Id.');
export const batchRequestTooLong = () => new SnsError('BatchRequestTooLong', 'The length of all the messages put together is more than the limit.');
/** Anything the emulator did not expect, and the `loseResponse` fault; the SDK retries it. */
export const internalError = () => new SnsError('InternalError', 'Internal Error', 500, 'Receiver');
export const invalidAction = (action: string) => new SnsError('InvalidAction', `The local SNS does not implement ${action}.`);
