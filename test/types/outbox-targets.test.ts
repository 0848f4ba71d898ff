import type { SQSRecord } from 'aws-lambda';
import { describe, expectTypeOf, it } from 'vitest';
import { sql, type Database, type InboxOptions, type MessageContext, type OutboxMessage } from '../../functions/inbox/index.js';
import { inbox, kafkaInbox } from '../../functions/inbox/middleware/index.js';
import { outboxTargetsFromEnv, type Publisher } from '../../functions/inbox/outbox/index.js';
import { processBatch } from '../../functions/inbox/sqs/process-sqs-batch.js';

// Checked by `npm run typecheck` (tsc covers test/): a `@ts-expect-error` whose line compiles is
// itself an error, so each refusal below is pinned. The `it`s only name them, and `typed` never
// calls what it is given: the options here are for the compiler, not for a run
// (outbox-transaction-mode.test.ts pins the run-time OutboxTargetError).
const typed = (_build: () => unknown): void => undefined;
const db = {} as Database;
const publisher = {} as Publisher;
const targets = { walletEvents: publisher, ledger: publisher };
type Payment = { walletId: string };

describe('outbox target names are typed by the consumer\'s targets', () => {
  it('a handler sends to a target the options name', () => {
    typed(() => inbox({
      consumer: 'payments', db, outbox: { targets },
      handle: async (payment: Payment, { outbox }) => {
        await outbox.send({ target: 'walletEvents', body: { walletId: payment.walletId } });
        expectTypeOf(outbox.send).parameter(0).toEqualTypeOf<OutboxMessage<'walletEvents' | 'ledger'>>();
      },
    }));
  });

  it('refuses a typo in transaction mode', () => {
    typed(() => inbox({
      consumer: 'payments', db, outbox: { targets },
      handle: async (payment: Payment, { outbox }) => {
        // @ts-expect-error 'walletEvent' is not one of the targets (walletEvents, ledger)
        await outbox.send({ target: 'walletEvent', body: { walletId: payment.walletId } });
      },
    }));
  });

  it('refuses a typo in statement mode', () => {
    typed(() => inbox({
      consumer: 'payments', db,
      statement: (payment: Payment) => sql`UPDATE wallets SET version = version + 1 WHERE wallet_id = ${payment.walletId}`,
      outbox: { targets, messages: (payment) => [{ target: 'ledger', body: { walletId: payment.walletId } }] },
    }));
    typed(() => inbox({
      consumer: 'payments', db,
      statement: (payment: Payment) => sql`UPDATE wallets SET version = version + 1 WHERE wallet_id = ${payment.walletId}`,
      // @ts-expect-error 'walletEvent' is not one of the targets
      outbox: { targets, messages: (payment) => [{ target: 'walletEvent', body: { walletId: payment.walletId } }] },
    }));
  });

  it('refuses a typo with both type arguments given, on processBatch and on Kafka too', () => {
    typed(() => processBatch<Payment, 'walletEvents'>({ Records: [] }, {} as never, {
      consumer: 'payments', db, outbox: { targets: { walletEvents: publisher } },
      // @ts-expect-error 'walletEvent' is not the target
      handle: async (payment, { outbox }) => { await outbox.send({ target: 'walletEvent', body: payment }); },
    }));
    typed(() => kafkaInbox({
      consumer: 'payments', db, outbox: { targets },
      // @ts-expect-error 'walletEvent' is not one of the targets
      handle: async (payment: Payment, { outbox }) => { await outbox.send({ target: 'walletEvent', body: payment }); },
    }));
  });

  it('types the names outboxTargetsFromEnv is given', () => {
    const fromEnv = () => outboxTargetsFromEnv({ names: ['walletEvents'] });
    expectTypeOf(fromEnv).returns.toEqualTypeOf<Record<'walletEvents', Publisher>>();
    typed(() => inbox({
      consumer: 'payments', db, outbox: { targets: fromEnv() },
      // @ts-expect-error 'walletEvent' is not the target outboxTargetsFromEnv was told of
      handle: async (payment: Payment, { outbox }) => { await outbox.send({ target: 'walletEvent', body: payment }); },
    }));
  });

  it('keeps today\'s code compiling: any name where the names are not known', () => {
    expectTypeOf<MessageContext['outbox']['send']>().parameter(0).toEqualTypeOf<OutboxMessage>();
    expectTypeOf<OutboxMessage['target']>().toEqualTypeOf<string>();
    const options: InboxOptions<Payment> = {
      consumer: 'payments', db, outbox: { targets: {} as Record<string, Publisher> },
      handle: async (_payment, { outbox }) => { await outbox.send({ target: 'anything', body: '' }); },
    };
    expectTypeOf(options).toExtend<InboxOptions<Payment, SQSRecord, string>>();
    expectTypeOf(outboxTargetsFromEnv).returns.toEqualTypeOf<Record<string, Publisher>>();
  });
});
