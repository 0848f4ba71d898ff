/** An error as the SDK throws it: its class's name, and the service's fault and HTTP status. */
export type ThrownError = Error & { $fault?: string; $metadata?: { httpStatusCode?: number } };

/** What `promise` rejects with; a promise that resolves fails the test. */
export async function thrown(promise: Promise<unknown>): Promise<ThrownError> {
  try {
    await promise;
  } catch (error) {
    return error as ThrownError;
  }
  throw new Error('expected the call to fail');
}
