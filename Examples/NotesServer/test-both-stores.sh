#!/usr/bin/env bash
# Builds NotesServer's tests as a newcomer's `swift build` does, without the PostgreSQL trait, and
# runs them on SQLite; then builds them once more with the trait and runs them against both
# stores, SQLite and PostgreSQL:
#
#   ./test-both-stores.sh            # from Examples/NotesServer; .ci/run's step h2 runs it
#   NOTES_BUILD_FLAGS=-warnings-as-errors ./test-both-stores.sh   # as CI builds it
#
# PostgreSQL comes from Debian's `postgresql` package, installed here if missing (apt-get, as
# root or through sudo). The script makes a cluster of its own in a temporary folder, starts it
# on a free port of 127.0.0.1 as the `postgres` user, runs the tests with
# NOTES_TEST_POSTGRES_URL pointing at it, and stops and removes the cluster whatever happens.
# Each test makes a schema of its own in it, so tests run in parallel as they do on SQLite.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

sudo=()
if ((EUID != 0)); then
  sudo=(sudo --non-interactive)
fi

find_postgres_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

if ! postgres_bin=$(find_postgres_bin); then
  echo "==> installing PostgreSQL (Debian's postgresql package)"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update
  "${sudo[@]}" apt-get install -y --no-install-recommends postgresql
  postgres_bin=$(find_postgres_bin)
fi
# Debian's package makes the `postgres` user; the server refuses to run as root.
run_as_postgres=()
if ((EUID == 0)); then
  run_as_postgres=(runuser -u postgres --)
fi

build_flags=()
if [[ -n "${NOTES_BUILD_FLAGS:-}" ]]; then
  build_flags=(-Xswiftc "$NOTES_BUILD_FLAGS")
fi
echo "==> the default build, without the PostgreSQL trait: its tests, on SQLite"
swift build --build-tests "${build_flags[@]}"
env -u NOTES_TEST_POSTGRES_URL swift test --skip-build

echo "==> building the tests with the PostgreSQL trait (once, for both stores)"
swift build --build-tests --traits PostgreSQL "${build_flags[@]}"

cluster=$(mktemp -d /tmp/notes-postgres.XXXXXX)
if ((EUID == 0)); then
  chown postgres: "$cluster"
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
stop_cluster() {
  "${run_as_postgres[@]}" "$postgres_bin/pg_ctl" -D "$cluster/data" -m immediate stop \
    >/dev/null 2>&1 || true
  rm -rf "$cluster"
}
trap stop_cluster EXIT

echo "==> a PostgreSQL cluster in $cluster, on 127.0.0.1:$port"
"${run_as_postgres[@]}" "$postgres_bin/initdb" -D "$cluster/data" -U postgres --auth=trust \
  --no-sync >/dev/null
"${run_as_postgres[@]}" "$postgres_bin/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $cluster -c fsync=off -c max_connections=300" \
  start >/dev/null

echo "==> the tests, against SQLite and PostgreSQL"
status=0
NOTES_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres" \
  swift test --skip-build --traits PostgreSQL || status=$?
if ((status != 0)); then
  echo "---- the PostgreSQL server's log ----"
  tail -n 40 "$cluster/server.log" || true
fi
exit "$status"
