import type http from 'node:http';
import { ACCOUNT_ID, settingChecks } from './setting-checks.js';

/** What every local stand-in for an AWS service built on this takes, besides its own options. */
export interface LocalServiceOptions<F> {
  /**
   * The port on 127.0.0.1.
   * @default 0 (a free port)
   */
  readonly port?: number;
  /**
   * The account in ARNs.
   * @default '000000000000'
   */
  readonly accountId?: string;
  /**
   * The region in ARNs.
   * @default 'us-east-1'
   */
  readonly region?: string;
  /**
   * The service's clock, in milliseconds since the epoch.
   * @default Date.now
   */
  readonly now?: () => number;
  /**
   * Faults to inject; `setFaults` replaces them later.
   * @default none
   */
  readonly faults?: F;
}

/** Calls a local service answered so far. */
export interface LocalServiceStats<C> {
  /** By operation name. */
  readonly calls: Readonly<Record<string, number>>;
  /** Calls answered with an error, by its name. */
  readonly errors: Readonly<Record<string, number>>;
  /** How often each injected fault fired. */
  readonly faults: Readonly<C>;
}

/**
 * The common options with their defaults, the account checked.
 *
 * @example
 * ```ts
 * const { port, accountId, region, now } = localServiceSettings(options);
 * ```
 */
export function localServiceSettings<F extends object>(options: LocalServiceOptions<F>): { port: number; accountId: string; region: string; now: () => number; faults: F } {
  const accountId = options.accountId ?? '000000000000';
  settingChecks({ accountId }).matches('accountId', ACCOUNT_ID.pattern, ACCOUNT_ID.described);
  return { port: options.port ?? 0, accountId, region: options.region ?? 'us-east-1', now: options.now ?? Date.now, faults: options.faults ?? ({} as F) };
}

/** Counts a local service's calls and errors, for its `stats()`. */
export class CallCounts {
  private readonly calls: Record<string, number> = {};
  private readonly errors: Record<string, number> = {};

  public call(operation: string): void {
    this.calls[operation] = (this.calls[operation] ?? 0) + 1;
  }

  public error(name: string): void {
    this.errors[name] = (this.errors[name] ?? 0) + 1;
  }

  public stats<C extends object>(faults: C): LocalServiceStats<C> {
    return { calls: { ...this.calls }, errors: { ...this.errors }, faults: { ...faults } };
  }
}

/**
 * Stops a server and ends its connections, kept-alive ones included.
 *
 * @example
 * ```ts
 * close: () => closeServer(server)
 * ```
 */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
