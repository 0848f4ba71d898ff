-- The inbox: one row per consumed message, claimed in the same transaction as its effect.
--
-- IF NOT EXISTS: this is recorded as sqs-inbox/0001_consumed_message.sql, and a database migrated
-- before the kit's migrations had a name of their own recorded it as 0001_consumed_message.sql, so
-- there the table is already in place and this run leaves it as it is.
CREATE TABLE IF NOT EXISTS consumed_message (
  consumer_name text        NOT NULL,
  message_id    text        NOT NULL,   -- the idempotency key (not always the SQS messageId)
  status        text        NOT NULL DEFAULT 'processed' CHECK (status IN ('processed', 'rejected')),
  payload_hash  text        NOT NULL,   -- sha-256 of the body: a different body under a known key is a collision
  processed_at  timestamptz NOT NULL DEFAULT now(),
  error         text,                   -- why a rejected message was rejected
  PRIMARY KEY (consumer_name, message_id)
);

-- Retention deletes by age in bounded batches.
CREATE INDEX IF NOT EXISTS consumed_message_processed_at ON consumed_message (processed_at);
