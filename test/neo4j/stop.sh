#!/usr/bin/env bash
# Stops the Neo4j started by start.sh: SIGTERM (clean shutdown), wait, then SIGKILL.
# Env: NEO4J_PID_FILE (.run/neo4j.pid), NEO4J_STOP_TIMEOUT (60 s before SIGKILL).
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PID_FILE="${NEO4J_PID_FILE:-$DIR/.run/neo4j.pid}"
TIMEOUT="${NEO4J_STOP_TIMEOUT:-60}"

log() { echo "[neo4j stop] $*" >&2; }
alive() {   # running and not a zombie left for a parent that does not reap
  kill -0 "$1" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != "Z" ]
}

if [ ! -f "$PID_FILE" ]; then log "not running (no $PID_FILE)"; exit 0; fi
pid="$(cat "$PID_FILE" 2>/dev/null || true)"
if [ -z "$pid" ] || ! alive "$pid"; then log "not running (stale pid file)"; rm -f "$PID_FILE"; exit 0; fi
if ! tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q 'lore\.Neo4jLauncher'; then
  log "pid $pid is not the Neo4j launcher (pid reused?); removing the pid file only"
  rm -f "$PID_FILE"; exit 0
fi

kill -TERM "$pid" 2>/dev/null || true
deadline=$((SECONDS + TIMEOUT))
while alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
if alive "$pid"; then
  log "still running after $TIMEOUT s; sending SIGKILL to $pid"
  kill -KILL "$pid" 2>/dev/null || true
  while alive "$pid"; do sleep 0.1; done
fi
rm -f "$PID_FILE"
log "stopped (pid $pid)"
