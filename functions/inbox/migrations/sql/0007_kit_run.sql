-- When the cleanup and each consumer's outbox relay last ran, and what they did: one row each,
-- written by the run at its end, read by `npx sqs-inbox status`. Only the last run is kept; the
-- history is in their logs and metrics.
CREATE TABLE IF NOT EXISTS kit_run (
  component     text        NOT NULL CHECK (component IN ('cleanup', 'relay')),
  consumer_name text        NOT NULL DEFAULT '',  -- the relay's consumer; '' for the cleanup, which serves every consumer of the database
  ran_at        timestamptz NOT NULL DEFAULT now(),
  report        jsonb       NOT NULL,             -- what the run did: deleted, sent, failed, why it stopped
  PRIMARY KEY (component, consumer_name)
);
