-- What an operator changed with `npx sqs-inbox`: one row for each change, written in the same
-- transaction as the change, so a change without its row (or a row without its change) cannot be.
-- Numbered 0006: 0005 is the outbox's trace context.
CREATE TABLE IF NOT EXISTS operator_audit (
  id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id     uuid        NOT NULL,                      -- one command run; a replay writes a row per message under it
  actor      text        NOT NULL,                      -- who ran it: the operating system's user and host
  db_role    text        NOT NULL DEFAULT current_user, -- the database role it signed in as
  at         timestamptz NOT NULL DEFAULT now(),
  command    text        NOT NULL,                      -- noun and verb, `outbox retry`
  subject    jsonb       NOT NULL,                      -- what it touched: the filters given and the rows' ids
  row_count  integer     NOT NULL CHECK (row_count >= 0)
);

CREATE INDEX IF NOT EXISTS operator_audit_at ON operator_audit (at);
