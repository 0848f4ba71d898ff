-- A twin for each function role, for the rotation of the role secrets by alternating users (the
-- role-rotation function, AWS's "alternating users" strategy): a rotation sets the password of the
-- login the secret does not hold now, tests it, and only then makes it the secret's current one,
-- so the functions keep signing in with the current login while a rotation runs. The twin is a
-- member of its role and inherits its privileges; it owns nothing and is granted nothing of its own.
--
-- The twins start NOLOGIN; the first rotation gives inbox_worker_clone (and inbox_cleanup_clone)
-- LOGIN and a password through inbox_set_role_password. Like the roles, they belong to the cluster,
-- so each is created only when missing, and the membership is granted again on every run.
DO $$
BEGIN
  CREATE ROLE inbox_worker_clone NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;

DO $$
BEGIN
  CREATE ROLE inbox_cleanup_clone NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;

GRANT inbox_worker TO inbox_worker_clone;
GRANT inbox_cleanup TO inbox_cleanup_clone;
