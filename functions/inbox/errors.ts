/**
 * Base class of every error the kit throws, so callers can tell the kit's refusals from their own.
 *
 * @example
 * ```ts
 * try { await processBatch(event, context, options); }
 * catch (error) { if (error instanceof InboxError) logger.error('inbox refused the call', { error }); throw error; }
 * ```
 */
export class InboxError extends Error {
  public constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InboxError';
  }
}

/**
 * The options given to `inbox()` or `processBatch()` cannot work; the message says which one to change.
 *
 * @example
 * ```ts
 * expect(() => inbox({ consumer: '', db, handle })).toThrow(InboxConfigError);
 * ```
 */
export class InboxConfigError extends InboxError {
  public constructor(message: string) {
    super(message);
    this.name = 'InboxConfigError';
  }
}

/**
 * No consumer name: the `consumer` option was left out where the consumer construct's
 * `INBOX_CONSUMER` is not set (outside Lambda, or a function the kit's constructs did not make).
 *
 * @example
 * ```ts
 * expect(() => inbox({ db, handle })).toThrow(ConsumerNameMissingError); // no INBOX_CONSUMER
 * ```
 */
export class ConsumerNameMissingError extends InboxConfigError {
  public constructor(variable: string) {
    super(`No consumer name: give the consumer option (the consumer_name its claims are recorded under), or run where ${variable} is set, `
      + 'as the InboxConsumer and InboxKafkaConsumer constructs set it to their serviceName.');
    this.name = 'ConsumerNameMissingError';
  }
}

/**
 * The handler's `consumer` option names another consumer than the one deployed (`INBOX_CONSUMER`,
 * the construct's `serviceName`): its rows would be invisible to its relay and its metrics to its
 * alarms, so every invocation fails as a whole and nothing is acknowledged.
 *
 * @example
 * ```ts
 * await expect(processBatch(event, context, { consumer: 'orders', db, handle })).rejects.toThrow(ConsumerNameMismatchError); // INBOX_CONSUMER=ship-orders
 * ```
 */
export class ConsumerNameMismatchError extends InboxConfigError {
  public constructor(given: string, deployed: string, variable: string) {
    super(`The consumer option is "${given}" but this function is deployed as the consumer "${deployed}" (${variable}, the construct's serviceName): `
      + `its relay would never send the rows written under "${given}", nor its alarms see their metrics. Leave the consumer option out to use `
      + `"${deployed}", or give the construct serviceName "${given}".`);
    this.name = 'ConsumerNameMismatchError';
  }
}
