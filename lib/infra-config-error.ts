/**
 * The infrastructure was asked for something that would break the inbox's guarantees in AWS, or
 * for a setting that cannot work. Thrown at synth time, before anything is built; the message
 * quotes the value given and says what to change.
 *
 * lib/ cannot import the runtime's `InboxError` (lib/ never imports functions/), so this is the
 * synth-time counterpart.
 *
 * @example
 * ```ts
 * expect(() => new InboxConsumer(stack, 'Orders', { ...props, batchSize: 50, queueProps: { fifo: true } }))
 *   .toThrow(InfraConfigError);
 * ```
 */
export class InfraConfigError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'InfraConfigError';
  }
}
