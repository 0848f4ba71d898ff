import { LocalStackError } from '../errors.js';

/**
 * An error as Secrets Manager answers it over the AWS JSON 1.1 protocol: HTTP 400 (500 for its own
 * faults), the `x-amzn-ErrorType` header and a `{ "__type", "message" }` body naming the error, which
 * the SDK maps to its exception class (`ResourceNotFoundException`, `InvalidRequestException`, ...).
 * The statuses are those of the API reference's error lists and Common Errors page.
 */
export class SecretsManagerError extends LocalStackError {
  public constructor(
    /** The error's name, as `__type` and `x-amzn-ErrorType` carry it. */
    public readonly type: string,
    message: string,
    public readonly status = 400,
  ) {
    super(message);
    this.name = type;
  }
}

/** A secret, or a version or staging label of it, that does not exist. */
export const resourceNotFound = (message = "Secrets Manager can't find the specified secret.") =>
  new SecretsManagerError('ResourceNotFoundException', message);

/** A parameter with a value the operation does not take. */
export const invalidParameter = (message: string) => new SecretsManagerError('InvalidParameterException', message);

/** A request that does not fit the secret's state: marked for deletion, a rotation still under way, a stage on another version. */
export const invalidRequest = (message: string) => new SecretsManagerError('InvalidRequestException', message);

/** A secret name or version that exists already with other content. */
export const resourceExists = (message: string) => new SecretsManagerError('ResourceExistsException', message);

/** A member outside its documented constraints, worded as the service's input validation words it. */
export const validationError = (member: string, constraint: string) =>
  new SecretsManagerError('ValidationException', `1 validation error detected: Value at '${member}' failed to satisfy constraint: ${constraint}`);

/** A body that is not a JSON object. */
export const serializationError = (message: string) => new SecretsManagerError('SerializationException', message);

/** An `X-Amz-Target` the service does not have. */
export const unknownOperation = (target: string) => new SecretsManagerError('UnknownOperationException', `No operation ${target}.`);

/** Anything the stand-in did not expect. */
export const internalError = () => new SecretsManagerError('InternalServiceError', 'An error occurred on the server side.', 500);

/** Any thrown value as the error the service would answer with. */
export function secretsManagerErrorOf(error: unknown): SecretsManagerError {
  return error instanceof SecretsManagerError ? error : internalError();
}
