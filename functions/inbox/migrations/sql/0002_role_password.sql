-- The kit's database roles sign in through Secrets Manager secrets: one role (and its twin, for the
-- rotation by alternating users) per consumer attached to an InboxDatabase, and one for the cleanup.
-- The migrate function creates them from its environment (they belong to the cluster, and their
-- names come from the stack, so no static file can hold them) and then sets the password of each
-- from its secret through this function, as the rotation function does for the login it rotates to.
--
-- Gives a role LOGIN and a password, from a SCRAM-SHA-256 verifier that the migrate function
-- computes from the role's secret: the plain password never reaches the server or its logs, and
-- the stored one is scram whatever password_encryption says (the Data API signs in to Aurora
-- PostgreSQL 14 and later with scram-sha-256 only). ALTER ROLE takes no bound parameter, so both
-- values arrive bound here and format() quotes them. Not SECURITY DEFINER: it runs with the
-- caller's rights, and PUBLIC may not call it. It touches plain roles only (no superuser,
-- CREATEROLE, CREATEDB, REPLICATION or BYPASSRLS, not the caller), so it cannot take over the owner,
-- and no error of it carries the verifier.
--
-- OR REPLACE: a database migrated before this was a kit migration has the same function from the
-- reference app's 0003_database_roles.sql.
CREATE OR REPLACE FUNCTION inbox_set_role_password(role_name text, scram_verifier text) RETURNS void
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
