#!/usr/bin/env bash
# First start: create the cluster, the user (password auth over the network) and the database.
set -euo pipefail
: "${POSTGRES_USER:=postgres}" "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}" "${POSTGRES_DB:=$POSTGRES_USER}"
if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  pg_ctl --wait --silent start -o "-c listen_addresses=''"
  [[ "$POSTGRES_DB" == postgres ]] || createdb --username="$POSTGRES_USER" "$POSTGRES_DB"
  pg_ctl --wait --silent stop
fi
exec postgres -c listen_addresses='*'
