#!/usr/bin/env bash
# Puts the three variants of NotesServer under the same load and prints their requests per
# second, 99th-percentile latency and server CPU per request side by side, with the cost of
# Milieu and of swift-dependencies as ratios against passing by hand:
#
#   ./load.sh                                  # from Examples/NotesServer
#   LOAD_SECONDS=10 LOAD_ROUNDS=6 ./load.sh
#   LOAD_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres ./load.sh   # on PostgreSQL
#
# The variants are the same server built three times: `NotesServer` gives each request a child
# node of the app's (Milieu); `NotesServerWithDependencies` runs each request in a
# `withDependencies` scope (swift-dependencies); `NotesServerByHand` passes the services in the
# request context. A second by-hand server, `by hand′`, runs beside them as a fourth variant:
# its ratio to the first is the A/A spread of the same run, the noise below which an A/B ratio
# says nothing.
#
# Every server keeps its notes in a database of its own, the same kind for all four: a fresh
# SQLite file each round, or, with LOAD_POSTGRES_URL, a fresh PostgreSQL database on that server
# (made and dropped with psql), in a build with the PostgreSQL trait. No database URL is ever on
# a command line: the servers get theirs in NOTES_STORE, psql its parts in libpq's PGHOST,
# PGUSER, PGPASSWORD… variables. Each round starts the four servers afresh on four ports, seeds
# and warms them up, then runs wrk for LOAD_SECONDS against a read route (GET /notes, 20 notes)
# and a write route (POST /notes) of each, the four variants back to back on each route, the
# first of them rotating from round to round. The machine is shared, so a sample says little
# alone: every sample is printed, and the table gives the median of each variant and the median of the
# per-round ratios, each ratio taken between two samples seconds apart. Besides wrk's requests
# per second and 99th percentile, it reports the server's CPU time per request (user + system,
# from /proc), which other processes on the machine disturb far less than they disturb
# throughput.
#
# Traffic goes to 127.0.0.1 only. wrk and curl come from Debian's packages, installed here if
# missing (we run as root). The servers are always stopped, whatever happens, by the EXIT trap.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

readonly seconds=${LOAD_SECONDS:-5}
readonly rounds=${LOAD_ROUNDS:-4}
readonly connections=${LOAD_CONNECTIONS:-16}
readonly warmup_seconds=1
readonly first_port=${LOAD_PORT:-18480}
readonly postgres_url=${LOAD_POSTGRES_URL:-}
# The variants, in the order of the table, with the executable and port of each.
readonly variants=(milieu dependencies byhand byhand2)
declare -A executable=([milieu]=NotesServer [dependencies]=NotesServerWithDependencies
  [byhand]=NotesServerByHand [byhand2]=NotesServerByHand)
declare -A port=([milieu]=$first_port [dependencies]=$((first_port + 1))
  [byhand]=$((first_port + 2)) [byhand2]=$((first_port + 3)))

if [[ -n "$postgres_url" ]] && ! command -v psql >/dev/null 2>&1; then
  echo "LOAD_POSTGRES_URL is set, but psql, which makes each server's database, is missing:" \
    "install Debian's postgresql-client" >&2
  exit 1
fi

# psql's notices ("database … does not exist, skipping") would interleave with the samples.
export PGOPTIONS=--client-min-messages=warning

# psql_admin ARGUMENTS...: psql on LOAD_POSTGRES_URL's server. The URL's parts go to psql in
# libpq's environment variables, never on a command line, where `ps` shows them, password and
# all, to every user of the machine; the servers get theirs in NOTES_STORE.
if [[ -n "$postgres_url" ]]; then
  url_form='^(postgres|postgresql)://([^:@/]+)(:(.*))?@([^@:/]+)(:([0-9]+))?/([^/?]+)$'
  if [[ ! "$postgres_url" =~ $url_form ]]; then
    echo "LOAD_POSTGRES_URL is not postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE" >&2
    exit 1
  fi
  readonly pg_user=${BASH_REMATCH[2]} pg_password=${BASH_REMATCH[4]} pg_host=${BASH_REMATCH[5]}
  readonly pg_port=${BASH_REMATCH[7]:-5432} pg_database=${BASH_REMATCH[8]}
fi
psql_admin() {
  PGHOST=$pg_host PGPORT=$pg_port PGUSER=$pg_user PGPASSWORD=$pg_password \
    PGDATABASE=$pg_database psql -q "$@"
}

if ! command -v wrk >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
  echo "==> installing wrk and curl"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends wrk curl
fi

# The PostgreSQL store is built only with the PostgreSQL trait (Package.swift).
build_options=(-c release)
if [[ -n "$postgres_url" ]]; then
  build_options+=(--traits PostgreSQL)
fi
echo "==> building the three variants (release${postgres_url:+, with the PostgreSQL trait})"
for product in NotesServer NotesServerWithDependencies NotesServerByHand; do
  swift build "${build_options[@]}" --product "$product"
done
bin_path=$(swift build "${build_options[@]}" --show-bin-path)

work=$(mktemp -d)
readonly clock_ticks=$(getconf CLK_TCK)
server_pids=()
databases=()
declare -A variant_pid
stop_servers() {
  local pid database
  for pid in "${server_pids[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid"
      wait "$pid" 2>/dev/null || true
    fi
  done
  server_pids=()
  for database in "${databases[@]}"; do
    psql_admin -c "DROP DATABASE IF EXISTS $database" >/dev/null || true
  done
  databases=()
}
trap 'stop_servers; rm -rf "$work"' EXIT
# A signal ends the script through its EXIT trap, so the servers never outlive it.
trap 'exit 130' INT
trap 'exit 143' TERM

cat >"$work/post.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-User"] = "writer"
wrk.body = '{"title": "Load", "text": "written by wrk"}'
LUA

# new_store VARIANT ROUND: sets `store` to a fresh, empty database for a server: an SQLite
# file, or a PostgreSQL database made on LOAD_POSTGRES_URL's server (dropped by stop_servers).
new_store() {
  if [[ -z "$postgres_url" ]]; then
    store="$work/$1-$2.sqlite"
    return
  fi
  local database="notes_load_${1}_$2"
  psql_admin -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database" >/dev/null
  databases+=("$database")
  store="${postgres_url%/*}/$database"
}

# start_server VARIANT EXECUTABLE PORT STORE: starts it, waits at most 10 s until it answers,
# seeds 20 notes for the read route and warms it up.
start_server() {
  local variant="$1" executable="$2" port="$3" store="$4"
  local address="http://127.0.0.1:$port"
  # The store through its variable, so that a URL's password stays off the command line.
  NOTES_STORE="$store" "$bin_path/$executable" --port "$port" --log-level error \
    >"$work/$variant.log" 2>&1 &
  local pid=$!
  server_pids+=("$pid")
  variant_pid[$variant]=$pid
  local attempt
  for attempt in $(seq 100); do
    if curl -s -o /dev/null "$address/me"; then
      break
    fi
    if ! kill -0 "$pid" 2>/dev/null || ((attempt == 100)); then
      echo "$executable did not answer on $address:" >&2
      cat "$work/$variant.log" >&2
      return 1
    fi
    sleep 0.1
  done
  local note
  for note in $(seq 20); do
    curl -s -o /dev/null -X POST -H 'X-User: reader' -H 'Content-Type: application/json' \
      -d "{\"title\": \"note $note\", \"text\": \"seeded\"}" "$address/notes"
  done
  wrk -t1 -c"$connections" -d"${warmup_seconds}s" -H 'X-User: reader' "$address/notes" \
    >/dev/null
}

# to_ms VALUE: wrk's latency (such as 812.00us, 1.25ms, 1.02s) in milliseconds.
to_ms() {
  awk -v value="$1" 'BEGIN {
    number = value + 0
    if (value ~ /us$/) number /= 1000
    else if (value ~ /ms$/) number *= 1
    else if (value ~ /s$/) number *= 1000
    printf "%.3f", number
  }'
}

# cpu_ticks PID: the user and system CPU time a process has used so far, in clock ticks.
cpu_ticks() {
  awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# measure ROUND VARIANT ROUTE PORT: runs wrk and appends "round variant route rps p99ms
# cpu_us_per_request" to the samples.
measure() {
  local round="$1" variant="$2" route="$3" port="$4"
  local url="http://127.0.0.1:$port/notes"
  local arguments=(-H 'X-User: reader' "$url")
  if [[ "$route" == "POST /notes" ]]; then
    arguments=(-s "$work/post.lua" "$url")
  fi
  local pid=${variant_pid[$variant]} output ticks_before ticks_after
  ticks_before=$(cpu_ticks "$pid")
  output=$(wrk -t1 -c"$connections" -d"${seconds}s" --latency "${arguments[@]}")
  ticks_after=$(cpu_ticks "$pid")
  local rps p99 errors requests cpu
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$output")
  requests=$(awk '/ requests in / {print $1}' <<<"$output")
  cpu=$(awk -v ticks=$((ticks_after - ticks_before)) -v hz="$clock_ticks" -v requests="$requests" \
    'BEGIN { printf "%.1f", ticks / hz * 1000000 / requests }')
  p99=$(awk '$1 == "99%" {print $2}' <<<"$output")
  errors=$(awk '/Non-2xx or 3xx responses:|Socket errors:/' <<<"$output")
  if [[ -z "$rps" || -z "$p99" ]]; then
    echo "could not read wrk's output:" >&2
    echo "$output" >&2
    return 1
  fi
  if [[ -n "$errors" ]]; then
    echo "wrk saw errors against $variant $route:" >&2
    echo "$errors" >&2
    return 1
  fi
  printf '    %-12s %-12s %10s req/s   p99 %8s ms   server CPU %6s µs/request\n' \
    "$variant" "$route" "$rps" "$(to_ms "$p99")" "$cpu"
  echo "$round $variant ${route// /_} $rps $(to_ms "$p99") $cpu" >>"$work/samples"
}

if [[ -n "$postgres_url" ]]; then
  echo "==> every server on a PostgreSQL database of its own, on ${postgres_url##*@}"
else
  echo "==> every server on an SQLite file of its own"
fi
echo "==> $rounds rounds of ${seconds} s per route and variant, after a ${warmup_seconds} s warm-up"
echo "    wrk -t1 -c$connections on 127.0.0.1; $(nproc) cores," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
for round in $(seq "$rounds"); do
  echo "  round $round"
  for variant in "${variants[@]}"; do
    new_store "$variant" "$round"
    start_server "$variant" "${executable[$variant]}" "${port[$variant]}" "$store"
  done
  # The variants in turn, the first of them rotating from round to round.
  order=()
  for offset in 0 1 2 3; do
    order+=("${variants[$(((round - 1 + offset) % 4))]}")
  done
  for route in "GET /notes" "POST /notes"; do
    for variant in "${order[@]}"; do
      measure "$round" "$variant" "$route" "${port[$variant]}"
    done
  done
  stop_servers
done

# median: the median of the numbers on standard input, one a line.
median() {
  sort -g | awk '{ value[NR] = $1 } END {
    if (NR % 2) printf "%s", value[(NR + 1) / 2]
    else printf "%s", (value[NR / 2] + value[NR / 2 + 1]) / 2
  }'
}

# column VARIANT ROUTE FIELD: one variant's samples of a route, field 4 (req/s), 5 (p99) or 6
# (server CPU per request).
column() {
  awk -v variant="$1" -v route="$2" -v field="$3" \
    '$2 == variant && $3 == route { print $field }' "$work/samples"
}

# ratios ROUTE FIELD VARIANT OTHER: VARIANT's sample over OTHER's, round by round.
ratios() {
  awk -v route="$1" -v field="$2" -v variant="$3" -v other="$4" '
    $3 == route { value[$1, $2] = $field; rounds[$1] = 1 }
    END { for (r in rounds) printf "%.4f\n", value[r, variant] / value[r, other] }
  ' "$work/samples"
}

# ratio ROUTE FIELD VARIANT OTHER: the median of the per-round ratios, and their range.
ratio() {
  local values
  values=$(ratios "$@" | sort -g)
  printf "%.3f (%.2f–%.2f)" "$(median <<<"$values")" "$(head -n1 <<<"$values")" \
    "$(tail -n1 <<<"$values")"
}

echo
echo "Medians over $rounds rounds; each ratio is the median of the per-round ratios (their range in"
echo "brackets). Server CPU is the server's user + system time during the run over the requests served."
echo "The A/A column is a second by-hand server against the first, in the same rounds."
echo
echo "| route | | A/A: by hand′ / by hand | Milieu | swift-dependencies | by hand |" \
  "Milieu / by hand | swift-dependencies / by hand | Milieu / swift-dependencies |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for route in GET_/notes POST_/notes; do
  for measure in "4 requests/s %.0f" "5 p99 latency, ms %.2f" "6 server CPU, µs/request %.1f"; do
    field=${measure%% *}
    format=${measure##* }
    label=${measure#* }
    label=${label% *}
    printf "| \`%s\` | %s | %s | $format | $format | $format | %s | %s | %s |\n" \
      "${route//_/ }" "$label" "$(ratio "$route" "$field" byhand2 byhand)" \
      "$(column milieu "$route" "$field" | median)" \
      "$(column dependencies "$route" "$field" | median)" \
      "$(column byhand "$route" "$field" | median)" \
      "$(ratio "$route" "$field" milieu byhand)" \
      "$(ratio "$route" "$field" dependencies byhand)" \
      "$(ratio "$route" "$field" milieu dependencies)"
  done
done
