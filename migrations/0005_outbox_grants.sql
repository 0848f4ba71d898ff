-- The reference stack's roles on the kit's outbox tables (0004), and the relay's own role. Like
-- 0003's, the relay role starts NOLOGIN; the migrate function gives it LOGIN and its secret's
-- password once the stack gives it a secret.
DO $$
BEGIN
  CREATE ROLE inbox_relay NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;

-- The worker writes rows in its claim's transaction (a FIFO group's row numbered and leased in the
-- same statement), then marks what it sent after the commit: dispatched, or failed with a reason.
-- It never takes another's lease nor deletes a row.
GRANT SELECT, INSERT ON outbox_message TO inbox_worker;
GRANT UPDATE (claimed_until, dispatched_at, failed_at, error) ON outbox_message TO inbox_worker;
GRANT SELECT, INSERT ON outbox_group TO inbox_worker;
GRANT UPDATE (next_seq, open_rows, holder, held_until, touched_at) ON outbox_group TO inbox_worker;

-- The relay leases rows and groups whose lease ran out (FOR UPDATE SKIP LOCKED), reads them, and
-- marks them; it writes no row and deletes none, and never touches the inbox.
GRANT SELECT ON outbox_message TO inbox_relay;
GRANT UPDATE (claimed_by, claimed_until, attempts, dispatched_at, failed_at, error) ON outbox_message TO inbox_relay;
GRANT SELECT ON outbox_group TO inbox_relay;
GRANT UPDATE (open_rows, holder, held_until, touched_at) ON outbox_group TO inbox_relay;

-- The cleanup deletes dispatched rows past their retention, and idle groups, picked with
-- SELECT ... FOR UPDATE SKIP LOCKED (which needs UPDATE on a column: the one each is judged by).
-- It reads neither bodies nor attributes.
GRANT SELECT (id, dispatched_at), DELETE ON outbox_message TO inbox_cleanup;
GRANT UPDATE (dispatched_at) ON outbox_message TO inbox_cleanup;
GRANT SELECT (consumer_name, target, group_id, open_rows, touched_at), DELETE ON outbox_group TO inbox_cleanup;
GRANT UPDATE (touched_at) ON outbox_group TO inbox_cleanup;
