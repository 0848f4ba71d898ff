-- What the inbox keeps of a message it did not apply: a rejected message (parse failure,
-- PermanentError, a bad, missing or oversized key) or the body of a collision (a known key with
-- another body), written in the same statement or transaction as its consumed_message row, so a
-- rejection acknowledges the delivery, never the data. An operator reads it, and replays it once
-- the cause is fixed (replayKept in sqs-inbox/operator). A key can collide again and again, and a
-- replay that fails again is kept again, so a row has an id of its own, not (consumer, key).
CREATE TABLE IF NOT EXISTS kept_message (
  id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  consumer_name text        NOT NULL,
  message_key   text        NOT NULL,             -- the idempotency key it was rejected or collided under
  kept_as       text        NOT NULL CHECK (kept_as IN ('rejected', 'collision')),
  reason        text        NOT NULL,             -- the error of a rejection; what a collision collided with
  source        text        NOT NULL CHECK (source IN ('sqs', 'kafka')),
  body          text        NOT NULL,             -- SQS: the body as sent; Kafka: the value in base64, as Lambda hands it over
  body_encoding text        NOT NULL CHECK (body_encoding IN ('utf8', 'base64')),
  body_bytes    integer     NOT NULL,             -- the original body's (Kafka: value's) size in bytes
  kept_bytes    integer     NOT NULL,             -- bytes of it kept in body: fewer when it was over the bound (cut)
  origin        jsonb       NOT NULL,             -- what a replay needs; SQS: messageId, eventSourceARN, messageAttributes,
                                                  -- messageGroupId, messageDeduplicationId; Kafka: topic, partition, offset, key, headers
  kept_at       timestamptz NOT NULL DEFAULT now(),
  replay_state  text        CHECK (replay_state IN ('sending', 'sent')),  -- NULL: never replayed, or its last send failed
  replays       integer     NOT NULL DEFAULT 0,   -- replays started
  replayed_at   timestamptz,                      -- when the last replay started, or was taken by the queue
  replay_error  text,                             -- why the last replay did not go
  CHECK (kept_bytes <= body_bytes)
);

-- The cleanup purges by age, on a retention of its own.
CREATE INDEX IF NOT EXISTS kept_message_kept_at ON kept_message (kept_at);

-- An operator's listing, and one key's story.
CREATE INDEX IF NOT EXISTS kept_message_key ON kept_message (consumer_name, message_key);
