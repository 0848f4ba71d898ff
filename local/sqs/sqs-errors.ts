import { LocalStackError } from '../errors.js';

/**
 * An error as SQS answers it over the AWS JSON 1.0 protocol: an HTTP status, a body
 * `{ "__type": "com.amazonaws.sqs#<Shape>", "message" }`, and the `x-amzn-query-error: <Code>;<Fault>`
 * header. The SDK's SQS client is query-compatible: it reads the code from that header first and maps
 * it to its exception class (`AWS.SimpleQueueService.NonExistentQueue` becomes `QueueDoesNotExist`);
 * a code it does not model (InvalidParameterValue, MissingParameter) becomes `SQSServiceException`
 * with that `name`.
 */
export class SqsError extends LocalStackError {
  public constructor(
    /** The error shape, the `__type` after `#`. */
    public readonly shape: string,
    /** The query-protocol code in `x-amzn-query-error`. */
    public readonly code: string,
    message: string,
    public readonly status = 400,
    public readonly fault: 'Sender' | 'Receiver' = 'Sender',
  ) {
    super(message);
    this.name = shape;
  }
}

/** A parameter with a value SQS refuses. */
export const invalidParameterValue = (message: string) => new SqsError('InvalidParameterValue', 'InvalidParameterValue', message);

/** A parameter out of its range, worded as SQS words it. */
export const invalidParameter = (name: string, value: unknown, reason: string) =>
  invalidParameterValue(`Value ${String(value)} for parameter ${name} is invalid. Reason: ${reason}`);

/** A required parameter that is absent or empty. */
export const missingParameter = (name: string) => new SqsError('MissingParameter', 'MissingParameter', `The request must contain the parameter ${name}.`);

export const queueDoesNotExist = () =>
  new SqsError('QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue', 'The specified queue does not exist.');

export const queueNameExists = (name: string) =>
  new SqsError('QueueNameExists', 'QueueAlreadyExists', `A queue already exists with the same name and a different value for attributes: ${name}`);

export const invalidAttributeName = (name: string) => new SqsError('InvalidAttributeName', 'InvalidAttributeName', `Unknown Attribute ${name}.`);

export const invalidAttributeValue = (name: string, reason: string) =>
  new SqsError('InvalidAttributeValue', 'InvalidAttributeValue', `Invalid value for the parameter ${name}. Reason: ${reason}`);

export const invalidMessageContents = () =>
  new SqsError('InvalidMessageContents', 'InvalidMessageContents', 'Invalid characters found. Valid characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF.');

export const tooManyEntries = (count: number) =>
  new SqsError('TooManyEntriesInBatchRequest', 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest', `Maximum number of entries per request are 10. You have sent ${count}.`);

export const emptyBatch = (entryName: string) =>
  new SqsError('EmptyBatchRequest', 'AWS.SimpleQueueService.EmptyBatchRequest', `There should be at least one ${entryName} in the request.`);

export const batchEntryIdsNotDistinct = (id: string) =>
  new SqsError('BatchEntryIdsNotDistinct', 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct', `Id ${id} repeated.`);

export const invalidBatchEntryId = () =>
  new SqsError('InvalidBatchEntryId', 'AWS.SimpleQueueService.InvalidBatchEntryId', 'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.');

export const batchRequestTooLong = (limit: number, size: number) =>
  new SqsError('BatchRequestTooLong', 'AWS.SimpleQueueService.BatchRequestTooLong', `Batch requests cannot be longer than ${limit} bytes. You have sent ${size} bytes.`);

export const receiptHandleIsInvalid = (handle: string) =>
  new SqsError('ReceiptHandleIsInvalid', 'ReceiptHandleIsInvalid', `The input receipt handle "${handle}" is not a valid receipt handle.`, 404);

export const messageNotInflight = () =>
  new SqsError('MessageNotInflight', 'AWS.SimpleQueueService.MessageNotInflight', 'The message referred to is not in flight.');

export const purgeQueueInProgress = (queueUrl: string) =>
  new SqsError('PurgeQueueInProgress', 'AWS.SimpleQueueService.PurgeQueueInProgress', `Only one PurgeQueue operation on ${queueUrl} is allowed every 60 seconds.`, 403);

export const invalidAddress = (address: string) => new SqsError('InvalidAddress', 'InvalidAddress', `The address ${address} is not valid for this endpoint.`, 404);

/**
 * A queue or task an ARN or handle names that does not exist, as the message move task actions answer
 * it: ResourceNotFoundException, HTTP 404 (the SDK's model and LocalStack's snapshots of the real service).
 */
export const resourceNotFound = (message: string) => new SqsError('ResourceNotFoundException', 'ResourceNotFoundException', message, 404);

export const unsupportedOperation = (operation: string) =>
  new SqsError('UnsupportedOperation', 'AWS.SimpleQueueService.UnsupportedOperation', `The local SQS emulator does not implement ${operation}.`);

/** A body that is not a JSON object, as the JSON protocol front end refuses it. */
export const serializationError = (message: string) => new SqsError('SerializationException', 'SerializationException', message);

/** Anything the emulator did not expect, and the `loseResponse` fault; the SDK retries these. */
export const internalError = () => new SqsError('InternalError', 'InternalError', 'We encountered an internal error. Please try again.', 500, 'Receiver');

/**
 * The error to answer for anything thrown while serving a request: an `SqsError` as it is,
 * anything else as InternalError.
 *
 * @example
 * ```ts
 * sqsErrorOf(new TypeError('x')).status // 500
 * ```
 */
export function sqsErrorOf(error: unknown): SqsError {
  return error instanceof SqsError ? error : internalError();
}
