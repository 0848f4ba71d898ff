-- One database role per function of the reference stack, each signing in through a Secrets Manager
-- secret of its own, with only the privileges that function uses. The migrate function signs in as
-- the cluster's owner (the master secret) and runs the migrations; nothing else does.
--
-- Roles belong to the cluster, not to one database, so each is created only when missing (another
-- database of the cluster, or a concurrent run, may have made it). They start NOLOGIN: after the
-- migrations, on every run, the migrate function gives each LOGIN and its secret's password
-- through inbox_set_role_password below.
--
-- A later migration that adds a table grants each role what it needs on it, in the same file. No
-- ALTER DEFAULT PRIVILEGES: it would give every role the same rights on every new table.
DO $$
BEGIN
  CREATE ROLE inbox_worker NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;

DO $$
BEGIN
  CREATE ROLE inbox_cleanup NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;

-- The order worker: claims and rejections are INSERT ... ON CONFLICT DO NOTHING, the duplicate
-- check a SELECT; it never updates or deletes an inbox row. On the example's tables, what
-- ship-order and record-payment do: read an order, change its state columns, add a payment.
GRANT SELECT, INSERT ON consumed_message TO inbox_worker;
GRANT SELECT, UPDATE (status, version, paid_total, updated_at) ON orders TO inbox_worker;
GRANT INSERT ON order_payments TO inbox_worker;

-- The cleanup: deletes rows past the retention, picked with SELECT ... FOR UPDATE SKIP LOCKED,
-- which PostgreSQL allows only with UPDATE on at least one column. It gets processed_at alone, the
-- column it judges rows by: changing it can only make a row go sooner or later, which its DELETE
-- allows anyway. It reads the key and the age of a row, not its hash or error.
GRANT SELECT (consumer_name, message_id, processed_at), DELETE ON consumed_message TO inbox_cleanup;
GRANT UPDATE (processed_at) ON consumed_message TO inbox_cleanup;

-- Gives a role LOGIN and a password, from a SCRAM-SHA-256 verifier that the migrate function
-- computes from the role's secret: the plain password never reaches the server or its logs, and
-- the stored one is scram whatever password_encryption says (the Data API signs in to Aurora
-- PostgreSQL 14 and later with scram-sha-256 only). ALTER ROLE takes no bound parameter, so both
-- values arrive bound here and format() quotes them. Not SECURITY DEFINER: it runs with the
-- caller's rights, and PUBLIC may not call it. It touches plain roles only (no superuser,
-- CREATEROLE, CREATEDB, REPLICATION or BYPASSRLS, not the caller), so it cannot take over the owner,
-- and no error of it carries the verifier.
CREATE FUNCTION inbox_set_role_password(role_name text, scram_verifier text) RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  privileged boolean;
BEGIN
  IF role_name IS NULL OR role_name !~ '^[a-z_][a-z0-9_]{0,62}$' THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
      MESSAGE = format('inbox_set_role_password: %L is not a role name of lower-case letters, digits and _ (at most 63)', role_name);
  END IF;
  IF scram_verifier IS NULL OR scram_verifier !~ '^SCRAM-SHA-256\$[0-9]+:[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*:[A-Za-z0-9+/]+=*$' THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
      MESSAGE = format('inbox_set_role_password: the password of role %s must be given as a SCRAM-SHA-256 verifier, never in plain text', role_name);
  END IF;
  SELECT rolsuper OR rolcreaterole OR rolcreatedb OR rolreplication OR rolbypassrls INTO privileged
    FROM pg_roles WHERE rolname = role_name;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'undefined_object',
      MESSAGE = format('inbox_set_role_password: role %s does not exist: a migration must create it before its password is set', role_name);
  END IF;
  IF privileged OR role_name = current_user THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
      MESSAGE = format('inbox_set_role_password: role %s is privileged or the caller: only the plain roles of functions are managed here', role_name);
  END IF;
  BEGIN
    EXECUTE format('ALTER ROLE %I WITH LOGIN PASSWORD %L', role_name, scram_verifier);
  EXCEPTION WHEN OTHERS THEN
    -- Raised again without the failed statement, which holds the verifier, in its context.
    RAISE EXCEPTION USING ERRCODE = SQLSTATE, MESSAGE = format('inbox_set_role_password: setting the password of role %s failed: %s', role_name, SQLERRM);
  END;
END
$$;

REVOKE ALL ON FUNCTION inbox_set_role_password(text, text) FROM PUBLIC;
