-- The trace context of the span that wrote an outbox row, as a W3C traceparent
-- (00-<trace id>-<span id>-<flags>): the after-commit send and the relay send it on with the
-- message, so the next consumer's span continues the trace however late the row goes.
-- NULL when nothing traced the writer.
ALTER TABLE outbox_message ADD COLUMN IF NOT EXISTS trace_parent text;
