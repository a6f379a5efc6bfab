#!/usr/bin/env bash
# Drives milieu-demo in a real pseudo-terminal, with tmux, and checks that it answers keys and
# always gives the terminal back as it found it.
#
# Usage:
#   scripts/demo-pty-check.sh
#
# Needs tmux (CI installs it). Builds the demo with `swift build --product milieu-demo` (into
# .build, or DEMO_SCRATCH_PATH if set), then runs two checks, each in a fresh tmux session of its
# own on a private tmux server, in a 100x30 window:
#
#   1. `--scenario delete` answered with keys: Right moves the focus from Cancel to Delete,
#      Enter chooses it. The pane must show `Delete 3 notes?: tapped Delete`, the demo must exit
#      with status 0, and the pty's mode afterwards (`stty -g`) must equal its mode before, with
#      echo and icanon back on (`stty -a`). While the alert is up, the pty must be in raw mode.
#   2. The same scenario interrupted with C-c: the demo must end (by SIGINT: status 130) and the
#      pty's mode must again equal the mode before.
#
# Every wait polls for at most a few seconds; a failure prints what the pane showed and exits
# non-zero. The tmux server and the scratch folder are removed on every exit.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

readonly socket="milieu-pty-check-$$"
scratch_folder="$(mktemp -d "${TMPDIR:-/tmp}/milieu-pty-check.XXXXXX")"
readonly scratch_folder

cleanup() {
  tmux -L "$socket" kill-server >/dev/null 2>&1 || true
  rm -rf "$scratch_folder"
}
trap cleanup EXIT

fail() {
  echo "demo-pty-check: FAILED: $*" >&2
  if [[ -n "${session:-}" ]] && tmux -L "$socket" has-session -t "$session" 2>/dev/null; then
    echo "---- the pane showed:" >&2
    tmux -L "$socket" capture-pane -p -t "$session" >&2 || true
    echo "----" >&2
  fi
  exit 1
}

command -v tmux >/dev/null 2>&1 || fail "tmux is not installed (CI installs it with apt-get)"
# tmux needs a terminal type even for detached sessions; CI may not set one.
export TERM="${TERM:-xterm-256color}"
[[ "$TERM" == "dumb" ]] && export TERM=xterm-256color

scratch_path=(--scratch-path "${DEMO_SCRATCH_PATH:-.build}")
echo "==> building milieu-demo"
swift build --product milieu-demo "${scratch_path[@]}"
demo="$(swift build --show-bin-path "${scratch_path[@]}")/milieu-demo"
[[ -x "$demo" ]] || fail "the demo was not built at $demo"

# The command each pane runs: records the pty's mode, runs the demo, records its exit status and
# the mode afterwards, then stays until the session is killed.
pane_script="$scratch_folder/pane.sh"
cat >"$pane_script" <<'EOF'
#!/usr/bin/env bash
results="$1"
shift
stty -g >"$results/before"
"$@"
echo $? >"$results/status"
stty -g >"$results/after"
stty -a >"$results/after-all"
echo "pane: demo ended"
exec tail -f /dev/null
EOF
chmod +x "$pane_script"

# wait_for DESCRIPTION COMMAND...: runs COMMAND every 0.1 s until it succeeds, for up to 10 s.
wait_for() {
  local description="$1"
  shift
  local attempt
  for ((attempt = 0; attempt < 100; attempt++)); do
    if "$@"; then
      return 0
    fi
    sleep 0.1
  done
  fail "timed out waiting for $description"
}

pane_shows() {
  tmux -L "$socket" capture-pane -p -t "$session" | grep -qF -- "$1"
}

file_exists() {
  [[ -s "$1" ]]
}

pty_is_raw() {
  local mode
  mode="$(stty -a -F "$pane_tty")"
  [[ "$mode" == *"-icanon"* && "$mode" == *"-echo "* ]]
}

# start_session NAME [VARIABLE=VALUE...]: starts the demo's delete scenario, with those variables
# set, in a new detached 100x30 session.
start_session() {
  session="$1"
  shift
  results="$scratch_folder/$session"
  mkdir -p "$results"
  tmux -L "$socket" new-session -d -s "$session" -x 100 -y 30 \
    "$pane_script" "$results" env "$@" "$demo" --scenario delete
  pane_tty="$(tmux -L "$socket" display-message -p -t "$session" '#{pane_tty}')"
  wait_for "the pane to record the pty's mode" file_exists "$results/before"
  wait_for "the delete alert to be drawn" pane_shows "2 Cancel"
  wait_for "the pty to enter raw mode while the alert is up" pty_is_raw
}

check_mode_restored() {
  local before after
  before="$(cat "$results/before")"
  after="$(cat "$results/after")"
  [[ "$before" == "$after" ]] ||
    fail "the pty's mode was not restored: before '$before', after '$after'"
  grep -Eq '(^| )icanon( |$)' "$results/after-all" || fail "icanon is off after the demo"
  grep -Eq '(^| )echo( |$)' "$results/after-all" || fail "echo is off after the demo"
}

echo "==> 1. answering with keys: Right, then Enter (NO_COLOR=1: focus shown by brackets)"
start_session answered NO_COLOR=1
wait_for "the focus to start on Cancel" pane_shows "[ 2 Cancel ]"
tmux -L "$socket" send-keys -t "$session" Right
wait_for "the focus to move to Delete" pane_shows "[ 1 Delete ]"
tmux -L "$socket" send-keys -t "$session" Enter
wait_for "the demo to end" file_exists "$results/status"
wait_for "the outcome line" pane_shows "Delete 3 notes?: tapped Delete"
status="$(cat "$results/status")"
[[ "$status" == 0 ]] || fail "the demo exited with status $status, not 0"
check_mode_restored
echo "    outcome line shown, exit status 0, pty mode restored (echo and icanon on)"
tmux -L "$socket" kill-session -t "$session"

echo "==> 2. interrupting with C-c (in colour)"
start_session interrupted NO_COLOR=
tmux -L "$socket" send-keys -t "$session" C-c
wait_for "the demo to end after C-c" file_exists "$results/status"
status="$(cat "$results/status")"
[[ "$status" == 130 ]] || fail "the demo exited with status $status after C-c, not 130 (SIGINT)"
check_mode_restored
echo "    the demo ended by SIGINT, pty mode restored (echo and icanon on)"
tmux -L "$socket" kill-session -t "$session"
session=""

echo "demo-pty-check: passed"
