-- The second consumer's table (functions/shipment-notices): a notice for each OrderShipped message
-- the order worker's outbox sends on. order_id is not unique on purpose: the inbox, not a constraint,
-- keeps a notice single, so an effect let through twice would show as two rows of one order.
-- notice_id numbers the notices as they were written: a FIFO group's notices in the order it received them.
CREATE TABLE shipment_notice (
  notice_id   bigserial   PRIMARY KEY,
  order_id    uuid        NOT NULL,
  message_key text        NOT NULL,   -- the idempotency key it came with: the order worker's outbox row id
  group_id    text,                   -- the MessageGroupId it came in
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX shipment_notice_order ON shipment_notice (order_id);

-- The notice worker's grants, for the role its InboxDatabase gives it (notice_worker: the
-- InboxConsumer's id, NoticeWorker, in snake case), when the stack has that consumer; a database
-- without the role (the reference stack before the second hop) is left as it is.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'notice_worker') THEN
    GRANT INSERT ON shipment_notice TO notice_worker;
    GRANT USAGE ON SEQUENCE shipment_notice_notice_id_seq TO notice_worker;
  END IF;
END
$$;
