#!/usr/bin/env bash
# Make sure PostgreSQL's server binaries (initdb, pg_ctl, postgres) are on this machine: the
# store tests and the local cluster start a throwaway server from them
# (localcluster/postgres.py). Installs Debian's postgresql package if they are missing.
set -euo pipefail
if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then exit 0; fi
if compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null; then exit 0; fi
echo "ensure_postgres: installing Debian's postgresql package" >&2
SUDO=$(command -v sudo || true)
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
  postgresql postgresql-contrib >/dev/null
