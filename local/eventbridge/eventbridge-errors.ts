import { LocalStackError } from '../errors.js';

/**
 * An error as EventBridge answers it over the AWS JSON 1.1 protocol: an HTTP status and a body
 * `{ "__type": "<Name>", "message" }`, from which the SDK's EventBridge client makes the exception
 * class of that name (`ResourceNotFoundException`, `InternalException`) or `EventBridgeServiceException`.
 */
export class EventBridgeError extends LocalStackError {
  public constructor(public readonly type: string, message: string, public readonly status = 400) {
    super(message);
    this.name = type;
  }
}

/** A bus the request names that does not exist. */
export const busNotFound = (name: string) => new EventBridgeError('ResourceNotFoundException', `Event bus ${name} does not exist.`);

/** A request that breaks a constraint of the API. */
export const validation = (message: string) => new EventBridgeError('ValidationException', message);

/** A bus created twice. */
export const busExists = (name: string) => new EventBridgeError('ResourceAlreadyExistsException', `Event bus ${name} already exists.`);

/** Anything the emulator did not expect, and the `loseResponse` fault; the SDK retries it. */
export const internal = () => new EventBridgeError('InternalException', 'An internal error occurred.', 500);

/** A body that is not a JSON object. */
export const serialization = (message: string) => new EventBridgeError('SerializationException', message);

/** An operation the emulator does not serve. */
export const unknownOperation = (operation: string) => new EventBridgeError('UnknownOperationException', `The local EventBridge does not implement ${operation}.`);
