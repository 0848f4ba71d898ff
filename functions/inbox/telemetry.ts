/**
 * The logger the kit writes one structured line per record to; a Powertools `Logger` fits.
 *
 * @example
 * ```ts
 * const logger: InboxLogger = new Logger({ serviceName: 'orders' });
 * ```
 */
export interface InboxLogger {
  debug(message: string, ...attributes: Record<string, unknown>[]): void;
  info(message: string, ...attributes: Record<string, unknown>[]): void;
  warn(message: string, ...attributes: Record<string, unknown>[]): void;
  error(message: string, ...attributes: Record<string, unknown>[]): void;
}

/**
 * Where the kit counts outcomes and records latencies; a Powertools `Metrics` fits.
 *
 * @example
 * ```ts
 * const metrics: InboxMetrics = new Metrics({ namespace: 'orders' });
 * ```
 */
export interface InboxMetrics {
  addMetric(name: string, unit: 'Count' | 'Milliseconds', value: number): void;
}
