import { sleep } from '../../functions/inbox/internal.js';
import { LocalConfigError } from '../errors.js';
import { databaseResuming } from './service-errors.js';

/** A fixed latency per call in milliseconds, or a random one between `[min, max]`. */
export type Latency = number | readonly [number, number];


function checkedLatency(latency: Latency): Latency {
  const values = typeof latency === 'number' ? [latency] : [...latency];
  if (values.length > 2 || values.some((ms) => !Number.isFinite(ms) || ms < 0) || (values.length === 2 && values[0]! > values[1]!)) {
    throw new LocalConfigError(`latency must be milliseconds >= 0 or [min, max] with min <= max, but ${JSON.stringify(latency)} was given.`);
  }
  return latency;
}

/**
 * The faults a test or a benchmark injects: a paused database that answers
 * DatabaseResumingException until a time, and a latency added to every call.
 *
 * @example
 * ```ts
 * const faults = new Faults(10);
 * faults.pause(2000); // calls in the next 2 s get DatabaseResumingException
 * await faults.beforeCall();
 * ```
 */
export class Faults {
  private pausedUntil = 0;
  private latency: Latency;

  public constructor(latency: Latency = 0) {
    this.latency = checkedLatency(latency);
  }

  /** Answers every call with DatabaseResumingException for `ms` milliseconds from now. */
  public pause(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new LocalConfigError(`pause takes milliseconds >= 0, but ${ms} was given.`);
    this.pausedUntil = Date.now() + ms;
  }

  /** Replaces the latency of every later call. */
  public setLatency(latency: Latency): void {
    this.latency = checkedLatency(latency);
  }

  /** Waits the call's latency, then refuses it if the database is paused. */
  public async beforeCall(): Promise<void> {
    const ms = typeof this.latency === 'number'
      ? this.latency
      : this.latency[0] + Math.random() * (this.latency[1] - this.latency[0]);
    if (ms > 0) await sleep(ms);
    if (Date.now() < this.pausedUntil) throw databaseResuming();
  }
}
