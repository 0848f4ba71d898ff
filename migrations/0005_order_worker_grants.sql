-- The reference app's own grants: what the order worker's handlers do to the example's tables, for
-- the database role its InboxDatabase gives it (order_worker: the InboxConsumer's id, OrderWorker,
-- in snake case). InboxDatabase creates that role before this folder's migrations run and grants it
-- the kit's own table (SELECT, INSERT on consumed_message); a project grants its own tables here.
-- ship-order and record-payment read an order, change its state columns and add a payment.
--
-- The numbers 0001, 0003 and 0004 are not reused: they were the inbox table and the reference
-- roles before the kit's migrations and roles came from InboxDatabase, and a database that
-- applied them keeps their records.
GRANT SELECT, UPDATE (status, version, paid_total, updated_at) ON orders TO order_worker;
GRANT INSERT ON order_payments TO order_worker;
