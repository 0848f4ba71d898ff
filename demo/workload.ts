import { randomUUID } from 'node:crypto';
import type { OutgoingMessage } from '../functions/inbox/producer/index.js';

/** Which example consumer the workload is for. */
export type WorkerMode = 'statement' | 'transaction';

/** An order the run seeds in the database before sending its message. */
export interface SeededOrder {
  readonly orderId: string;
  /** What the order costs; in transaction mode its one payment pays exactly this. */
  readonly amount: string;
  /** The idempotency key of its message. */
  readonly key: string;
  /** Its row stays locked by another session for the whole run, so its message can never apply. */
  readonly stuck: boolean;
}

/** What a run sends and what it expects of each message. */
export interface Workload {
  readonly orders: readonly SeededOrder[];
  /** Keys of the poison messages: bodies the worker's parse refuses. */
  readonly poisonKeys: readonly string[];
  /** Every message in send order: orders and poison mixed. */
  readonly messages: readonly OutgoingMessage[];
  /** The idempotency key of every message. */
  readonly keys: readonly string[];
}

/** Options of `orderWorkload`. */
export interface WorkloadOptions {
  readonly orders: number;
  readonly poison: number;
  /** Orders whose rows a stuck session holds locked. */
  readonly stuck: number;
  /** Message groups (customers) the orders are spread over; used on FIFO only. */
  readonly groups: number;
  readonly fifo: boolean;
  readonly mode: WorkerMode;
  /** Makes the poison keys of this run its own (order keys hold their order's new id already). */
  readonly runId: string;
  readonly random: () => number;
}

// Real keys are not all ASCII (a city, a customer's name): one order in twenty carries one, so the
// run shows such keys arriving intact (on Kafka as signed Java bytes) and applied once.
const NON_ASCII_EVERY = 20;
const NON_ASCII_WORDS = ['Zürich', 'Łódź', 'São-Paulo', '東京'] as const;

function keyWord(index: number): string {
  return (index + 1) % NON_ASCII_EVERY === 0 ? `${NON_ASCII_WORDS[((index + 1) / NON_ASCII_EVERY - 1) % NON_ASCII_WORDS.length]}-` : '';
}

function poisonBody(index: number): string {
  // Half are not JSON at all, half are JSON that fails the schema.
  return index % 2 === 0 ? `{"orderId": ${index}` : JSON.stringify({ orderId: `not-a-uuid-${index}`, paymentId: 'nope', amount: '-1' });
}

/**
 * The orders of a run and their messages: one ship-order message per order (statement mode) or one
 * payment of the order's amount (transaction mode), each with a stable idempotency key, spread over
 * message groups on FIFO. A stuck order gets a group of its own, so the messages that queue behind
 * it are not dragged to the DLQ with it. One key in twenty holds non-ASCII letters. Poison messages
 * go in at random places.
 *
 * @example
 * ```ts
 * const workload = orderWorkload({ orders: 100, poison: 2, stuck: 1, groups: 10, fifo: true, mode: 'statement', runId: 'r1', random: Math.random });
 * ```
 */
export function orderWorkload(options: WorkloadOptions): Workload {
  const orders: SeededOrder[] = [];
  const messages: OutgoingMessage[] = [];
  for (let index = 0; index < options.orders; index += 1) {
    const orderId = randomUUID();
    const stuck = index < options.stuck;
    const amount = (1 + Math.floor(options.random() * 50_000) / 100).toFixed(2);
    const paymentId = randomUUID();
    const key = options.mode === 'statement' ? `ship-${keyWord(index)}${orderId}` : `pay-${keyWord(index)}${paymentId}`;
    orders.push({ orderId, amount, key, stuck });
    const body = options.mode === 'statement' ? { orderId } : { paymentId, orderId, amount };
    const groupId = stuck ? `stuck-${orderId}` : `customer-${index % options.groups}`;
    messages.push({ body, key, ...(options.fifo ? { groupId } : {}) });
  }
  const poisonKeys: string[] = [];
  for (let index = 0; index < options.poison; index += 1) {
    const key = `poison-${options.runId}-${index}`;
    poisonKeys.push(key);
    const at = Math.floor(options.random() * (messages.length + 1));
    messages.splice(at, 0, { body: poisonBody(index), key, ...(options.fifo ? { groupId: `customer-${index % options.groups}` } : {}) });
  }
  return { orders, poisonKeys, messages, keys: messages.map((message) => message.key!) };
}
