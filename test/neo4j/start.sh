#!/usr/bin/env bash
# Starts embedded Neo4j 5.26 (Bolt on 127.0.0.1:$NEO4J_BOLT_PORT) in the background for Lore's
# tests, and returns once it accepts Bolt logins. Idempotent: exits 0 at once if it is already up.
# Env: NEO4J_BOLT_PORT (7687), NEO4J_PASSWORD (lore-test-password), NEO4J_DATA_DIR
# (default <tmp>/lore-neo4j-<port>, kept across restarts), NEO4J_WIPE=1 (start from an empty store),
# NEO4J_PID_FILE (.run/neo4j.pid), NEO4J_LOG_FILE (.run/neo4j.log), NEO4J_START_TIMEOUT (180 s),
# NEO4J_JAVA_OPTS (heap etc.), NEO4J_PAGECACHE (128m), NEO4J_CDS=1 (class-data sharing archive:
# ~2 s faster starts, but the first stop takes ~8 s longer to write it), MVN (mvn).
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PORT="${NEO4J_BOLT_PORT:-7687}"
RUN_DIR="$DIR/.run"
PID_FILE="${NEO4J_PID_FILE:-$RUN_DIR/neo4j.pid}"
LOG_FILE="${NEO4J_LOG_FILE:-$RUN_DIR/neo4j.log}"
TIMEOUT="${NEO4J_START_TIMEOUT:-180}"
MVN="${MVN:-mvn}"
JAVA_OPTS="${NEO4J_JAVA_OPTS:--Xms128m -Xmx512m -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError}"
# What Neo4j's own launcher passes on Java 17 (Netty and the page cache use these internals).
JAVA_OPENS="--add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  -Dio.netty.tryReflectionSetAccessible=true -Djdk.nio.maxCachedBufferSize=1024"
JAR="$DIR/target/lore-neo4j-launcher.jar"
CP_FILE="$DIR/target/classpath.txt"
CDS_FILE="$DIR/target/neo4j-cds.jsa"

export NEO4J_BOLT_PORT="$PORT" NEO4J_PID_FILE="$PID_FILE"
mkdir -p "$RUN_DIR" "$(dirname "$PID_FILE")" "$(dirname "$LOG_FILE")"

log() { echo "[neo4j start] $*" >&2; }
trap 'log "failed (line $LINENO)"' ERR

# True if a Bolt server answers the handshake on 127.0.0.1:$1 (bash /dev/tcp, no client needed).
bolt_ok() {
  timeout 5 bash -c '
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf "\x60\x60\xb0\x17\x00\x00\x04\x05\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00" >&3
    v=$(head -c 4 <&3 | od -An -tx1 | tr -d " \n")
    [ -n "$v" ] && [ "$v" != "00000000" ]' _ "$1" 2>/dev/null
}
port_open() { timeout 3 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null; }
alive() {   # running, and not a zombie waiting for a parent that does not reap
  kill -0 "$1" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != "Z" ]
}
ours_alive() {   # ... and really our launcher (guards against pid reuse)
  [ -n "$1" ] && alive "$1" && tr '\0' ' ' < "/proc/$1/cmdline" 2>/dev/null | grep -q 'lore\.Neo4jLauncher'
}
die() { log "$*"; exit 1; }
fail() {   # with the tail of the log of what failed
  log "$*"
  if [ -f "$LOG_FILE" ]; then log "last lines of $LOG_FILE:"; tail -n 40 "$LOG_FILE" >&2; fi
  exit 1
}

# One start at a time per pid file (a second concurrent start waits, then sees it running).
exec 9>"$PID_FILE.lock"
flock -w "$TIMEOUT" 9 || die "timed out waiting for another start.sh ($PID_FILE.lock)"

pid="$(cat "$PID_FILE" 2>/dev/null || true)"
if ours_alive "$pid"; then
  if bolt_ok "$PORT"; then log "already running (pid $pid) on bolt://127.0.0.1:$PORT"; exit 0; fi
  die "pid $pid from $PID_FILE is alive but Bolt does not answer on port $PORT; run stop.sh first"
fi
rm -f "$PID_FILE"
if bolt_ok "$PORT"; then log "a Bolt server already answers on 127.0.0.1:$PORT (not started by this pid file); using it"; exit 0; fi
if port_open "$PORT"; then die "port $PORT is in use by something that is not Bolt"; fi

# Build once: the launcher jar plus the runtime classpath file; later starts skip Maven entirely.
need_build=0
if [ ! -s "$CP_FILE" ] || [ ! -f "$JAR" ] || [ "$DIR/pom.xml" -nt "$CP_FILE" ] ||
   [ -n "$(find "$DIR/src" -newer "$JAR" -type f 2>/dev/null | head -n 1)" ]; then
  need_build=1
else
  IFS=: read -r -a jars < "$CP_FILE" || true   # the file has no trailing newline
  for j in "${jars[@]}"; do [ -f "$j" ] || { need_build=1; break; }; done   # e.g. ~/.m2 was wiped
fi
if [ "$need_build" = 1 ]; then
  log "building the launcher (the first run downloads Neo4j's ~170 MB of jars from Maven Central)..."
  t0=$SECONDS
  rm -f "$CDS_FILE"
  # Output goes to a file: Debian's Maven 3.8 prints stray ANSI resets even with -q.
  if ! "$MVN" -q -B -Dstyle.color=never -f "$DIR/pom.xml" package >"$RUN_DIR/build.log" 2>&1 9>&-; then
    LOG_FILE="$RUN_DIR/build.log" fail "mvn package failed"
  fi
  log "build done in $((SECONDS - t0)) s"
fi

CDS_OPTS=""
if [ "${NEO4J_CDS:-0}" = 1 ]; then
  if [ -s "$CDS_FILE" ]; then CDS_OPTS="-XX:SharedArchiveFile=$CDS_FILE"
  else CDS_OPTS="-XX:ArchiveClassesAtExit=$CDS_FILE"; fi   # written when this JVM exits
fi

if [ -f "$LOG_FILE" ]; then mv -f "$LOG_FILE" "$LOG_FILE.1"; fi
# setsid: detached from this shell's session, so Ctrl-C / a harness's group kill does not hit it.
# shellcheck disable=SC2086
setsid nohup java $JAVA_OPTS $CDS_OPTS $JAVA_OPENS -cp "$JAR:$(cat "$CP_FILE")" lore.Neo4jLauncher "$PORT" \
  </dev/null >"$LOG_FILE" 2>&1 9>&- &
pid=$!
echo "$pid" > "$PID_FILE"
log "started pid $pid, waiting for Bolt on 127.0.0.1:$PORT (log: $LOG_FILE)"

t0=$SECONDS
while :; do
  if grep -q "^NEO4J READY bolt://127.0.0.1:$PORT\$" "$LOG_FILE" 2>/dev/null; then
    log "ready: bolt://127.0.0.1:$PORT (pid $pid, $((SECONDS - t0)) s)"
    exit 0
  fi
  if ! alive "$pid"; then
    rm -f "$PID_FILE"
    fail "Neo4j exited before it was ready"
  fi
  if [ $((SECONDS - t0)) -ge "$TIMEOUT" ]; then
    kill -TERM "$pid" 2>/dev/null || true
    fail "Neo4j not ready after $TIMEOUT s (sent SIGTERM to pid $pid; stop.sh finishes the job)"
  fi
  sleep 0.3
done
