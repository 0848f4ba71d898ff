-- The outbox: what a consumer sends on, written in the claim's transaction (or as CTEs of the
-- guarded statement), so a message's outgoing messages commit with its effect or not at all. The
-- invocation that wrote a row sends it after the commit; the relay sends what is left.
--
-- IF NOT EXISTS: this is recorded as sqs-inbox/0003_outbox_message.sql, and a database migrated
-- before the kit's migrations had names of their own recorded it as 0004_outbox_message.sql, so
-- there the tables are already in place and this run leaves them as they are.
CREATE TABLE IF NOT EXISTS outbox_message (
  id            uuid        PRIMARY KEY,          -- UUIDv7: the downstream idempotency key, for ever
  consumer_name text        NOT NULL,             -- the consumer that wrote it (its targets name the destination)
  message_key   text        NOT NULL,             -- the idempotency key of the incoming message
  target        text        NOT NULL,             -- the target's name in the consumer's outbox options
  body          text        NOT NULL,             -- as it goes out (EventBridge: the detail, the key in it)
  attributes    jsonb       NOT NULL DEFAULT '{}', -- string message attributes, the key not among them
  group_id      text,                             -- MessageGroupId
  group_seq     bigint,                           -- place in its group on a FIFO target; NULL when unordered
  detail_type   text,                             -- EventBridge's detail-type
  size_bytes    integer     NOT NULL,             -- as the target counts it, checked against its limit when written
  created_at    timestamptz NOT NULL DEFAULT now(),
  claimed_by    text,                             -- the invocation or relay run whose lease covers the row
  claimed_until timestamptz,
  attempts      integer     NOT NULL DEFAULT 0,   -- relay leases so far
  dispatched_at timestamptz,                      -- the target took it
  failed_at     timestamptz,                      -- the target refused it for ever; never sent again
  error         text,                             -- why it failed, or why its last send did not go
  CHECK (dispatched_at IS NULL OR failed_at IS NULL),
  CHECK (group_seq IS NULL OR group_id IS NOT NULL)
);

-- A FIFO group's order and its lease. Writers of a group take its row lock (INSERT ... ON CONFLICT
-- DO UPDATE), so rows of one group are numbered in commit order, and whoever holds the group (the
-- writing invocation, or a relay run) is the only one that sends its open rows, in that order.
CREATE TABLE IF NOT EXISTS outbox_group (
  consumer_name text        NOT NULL,
  target        text        NOT NULL,
  group_id      text        NOT NULL,
  next_seq      bigint      NOT NULL,             -- the last group_seq given
  open_rows     integer     NOT NULL CHECK (open_rows >= 0),  -- rows neither dispatched nor failed
  holder        text,                             -- who may send the open rows
  held_until    timestamptz,
  touched_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer_name, target, group_id)
);

-- What the relay leases (oldest first) and the age of the oldest undispatched row.
CREATE INDEX IF NOT EXISTS outbox_message_open ON outbox_message (consumer_name, created_at)
  WHERE dispatched_at IS NULL AND failed_at IS NULL;

-- A group's open rows in order; a number is given once among them (a group row purged when idle
-- starts again from 1, behind closed rows only).
CREATE UNIQUE INDEX IF NOT EXISTS outbox_message_group_order ON outbox_message (consumer_name, target, group_id, group_seq)
  WHERE group_seq IS NOT NULL AND dispatched_at IS NULL AND failed_at IS NULL;

-- The cleanup purges dispatched rows by age.
CREATE INDEX IF NOT EXISTS outbox_message_dispatched_at ON outbox_message (dispatched_at) WHERE dispatched_at IS NOT NULL;

-- What an incoming message sent on.
CREATE INDEX IF NOT EXISTS outbox_message_source ON outbox_message (consumer_name, message_key);
