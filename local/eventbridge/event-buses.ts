import { busExists, busNotFound } from './eventbridge-errors.js';

/**
 * An event as EventBridge delivers it to a rule's target (an SQS queue gets this JSON as the
 * message body): the envelope, with the entry's detail parsed.
 */
export interface BusEvent {
  readonly version: '0';
  readonly id: string;
  readonly 'detail-type': string;
  readonly source: string;
  readonly account: string;
  /** ISO 8601 in UTC, to the second, as EventBridge writes it. */
  readonly time: string;
  readonly region: string;
  readonly resources: readonly string[];
  readonly detail: unknown;
}

const BUS_ARN = /^arn:aws[\w-]*:events:[a-z0-9-]+:(\d{12}):event-bus\/([.\-_A-Za-z0-9]+)$/;

/** The buses of the emulator, each with the events put on it, in order. */
export class EventBuses {
  private readonly buses = new Map<string, BusEvent[]>([['default', []]]);

  public constructor(private readonly accountId: string, private readonly region: string, names: readonly string[] = []) {
    for (const name of names) this.buses.set(name, []);
  }

  /** The bus's ARN. */
  public arnOf(name: string): string {
    return `arn:aws:events:${this.region}:${this.accountId}:event-bus/${name}`;
  }

  /** Creates a bus; ResourceAlreadyExistsException when it exists. */
  public create(name: string): string {
    if (this.buses.has(name)) throw busExists(name);
    this.buses.set(name, []);
    return this.arnOf(name);
  }

  /** The name a request's EventBusName (a name, an ARN, or nothing: the default bus) stands for; ResourceNotFoundException for an unknown bus. */
  public nameOf(given: string | undefined): string {
    const name = given === undefined || given === '' ? 'default' : (BUS_ARN.exec(given)?.[2] ?? given);
    if (!this.buses.has(name)) throw busNotFound(given ?? name);
    return name;
  }

  public put(name: string, event: BusEvent): void {
    this.buses.get(name)?.push(event);
  }

  /** The events of a bus, in the order they were put. */
  public events(name: string): readonly BusEvent[] {
    return [...(this.buses.get(name) ?? [])];
  }
}
