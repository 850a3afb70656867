#!/usr/bin/env bash
# The contract server of the test build (issue 50): the production WAR on Payara Micro, started as
# ./teamdesk up starts it, so that the OpenAPI document the tests generate a client from and lint is the
# one a deployed server serves.
#
#   scripts/contract-server.sh start   start it on the first free port from CONTRACT_PORT (18190), wait
#                                      for GET /health 200 (bounded), download GET /openapi as JSON to
#                                      target/openapi/teamdesk.json, write its URL to
#                                      target/contract-server/url
#   scripts/contract-server.sh stop    SIGTERM, wait (bounded), SIGKILL if it is still there
#
# `start <test classpath>` lets the watchdog (below) also delete the server's Redis keys
# (com.teamdesk.tasks.testing.ContractServerServices after), as post-integration-test does.
#
# Maven runs both (exec-maven-plugin, pre- and post-integration-test). The environment carries the
# connection settings (TEAMDESK_DB_URL, TEAMDESK_REDIS_URL, MP_JWT_VERIFY_*); the server's Redis prefix is
# TEAMDESK_REDIS_PREFIX, else the one in target/contract-server/redis-prefix (written by
# com.teamdesk.tasks.testing.ContractServerServices, which also deletes its keys after the stop). A watchdog stops the server when the process that ran `start` (Maven) exits, so a
# build that fails between start and stop leaves no Payara behind (CONTRACT_OWNER=<pid> watches another process,
# e.g. an interactive shell's $$ when started by hand).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR="$ROOT/target/contract-server"
PID_FILE="$DIR/payara.pid"
WATCHDOG_FILE="$DIR/watchdog.pid"
LOG_FILE="$DIR/payara.log"
URL_FILE="$DIR/url"
SPEC="$ROOT/target/openapi/teamdesk.json"
WAR="${CONTRACT_WAR:-$ROOT/target/teamdesk-tasks.war}" # another build's WAR: CONTRACT_WAR=/path/to.war
MICRO_JAR="$ROOT/target/payara-micro.jar"
# The class archive (CDS) the tests' servers map instead of loading and verifying Payara's and the WAR's classes
# again; written from this server once it is up (class_archive below). Its name is also in arquillian.xml and
# ServerProcess; a server started without it (a missing or stale file) just loads its classes as before.
CLASS_ARCHIVE="$ROOT/target/payara-micro.jsa"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
PRE_BOOT="$ROOT/server-config/pre-boot-commands.asadmin"
FIRST_PORT="${CONTRACT_PORT:-18190}"
HEALTH_TIMEOUT="${CONTRACT_HEALTH_TIMEOUT:-180}" # seconds until /health must answer 200
STOP_TIMEOUT="${CONTRACT_STOP_TIMEOUT:-60}"     # seconds after SIGTERM before SIGKILL

say() { printf '[contract-server] %s\n' "$*" >&2; }
die() {
    say "ERROR: $*"
    exit 1
}

port_taken() { # something accepts connections on 127.0.0.1:<port> (refused = free)
    local rc=0
    timeout 3 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' port-probe "$1" 2>/dev/null || rc=$?
    [ "$rc" -ne 1 ]
}

running_pid() { # the pid of our Payara Micro, or fails
    local pid
    pid=$(cat "$PID_FILE" 2>/dev/null) || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'payara-micro' || return 1
    echo "$pid"
}

log_tail() {
    say "--- last 60 lines of ${LOG_FILE#"$ROOT"/} ---"
    tail -n 60 "$LOG_FILE" >&2 || true
    say "--- end of log ---"
}

stop() {
    local pid deadline
    if [ -f "$WATCHDOG_FILE" ]; then
        kill "$(cat "$WATCHDOG_FILE")" 2>/dev/null || true
        rm -f "$WATCHDOG_FILE"
    fi
    if ! pid=$(running_pid); then
        rm -f "$PID_FILE"
        say "not running"
        return 0
    fi
    say "stopping pid $pid (SIGTERM, up to $STOP_TIMEOUT s)"
    kill -TERM "$pid"
    deadline=$((SECONDS + STOP_TIMEOUT))
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            say "still running after $STOP_TIMEOUT s: SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            break
        fi
        sleep 1
    done
    rm -f "$PID_FILE"
    say "stopped"
}

# The classes the running server loaded (Payara's, the WAR's libraries and classes) as a dynamic CDS archive,
# by `jcmd <pid> VM.cds dynamic_dump` (JDK 17+; the server runs with -XX:+RecordDynamicDumpInfo). About 40 IT
# servers boot from it: each maps the classes instead of parsing and verifying them, about 13 % less CPU per boot
# on a quiet machine, more under load (docs/decisions.md "The tests' servers boot from a class archive"). The JVM
# finds a class for a custom loader (OSGi bundles, the web application) by name, size and CRC, so the test WARs'
# classes match too. Without jcmd, or when the dump fails, the tests run as before (slower): an optimisation, not a
# service the tests need.
class_archive() {
    local jcmd started=$SECONDS
    rm -f "$CLASS_ARCHIVE" "$CLASS_ARCHIVE.tmp"
    jcmd="$(dirname "$(readlink -f "$(command -v "$JAVA")")")/jcmd"
    if [ ! -x "$jcmd" ]; then
        say "no $jcmd (a JRE, not a JDK?): the tests' servers boot without a class archive"
        return 0
    fi
    if "$jcmd" "$1" VM.cds dynamic_dump "$CLASS_ARCHIVE.tmp" >"$DIR/class-archive.log" 2>&1 &&
        [ -s "$CLASS_ARCHIVE.tmp" ]; then
        mv "$CLASS_ARCHIVE.tmp" "$CLASS_ARCHIVE" # whole or not at all: a JVM may open it at once
        say "class archive ${CLASS_ARCHIVE#"$ROOT"/} ($(($(wc -c <"$CLASS_ARCHIVE") / 1048576)) MiB) in $((SECONDS - started)) s"
    else
        rm -f "$CLASS_ARCHIVE.tmp"
        say "the class archive failed (${DIR#"$ROOT"/}/class-archive.log): the tests' servers boot without it"
    fi
}

start() {
    local port pid owner deadline url start=$SECONDS
    [ -f "$WAR" ] && [ -f "$MICRO_JAR" ] || die "no $WAR or $MICRO_JAR: run it from Maven after 'package'"
    TEAMDESK_REDIS_PREFIX=${TEAMDESK_REDIS_PREFIX:-$(cat "$DIR/redis-prefix" 2>/dev/null || true)}
    export TEAMDESK_REDIS_PREFIX
    [ -n "$TEAMDESK_REDIS_PREFIX" ] || die "TEAMDESK_REDIS_PREFIX is not set (the server must not share the default prefix)"
    [ -n "${TEAMDESK_DB_URL:-}" ] || die "TEAMDESK_DB_URL is not set"
    # The server stays up while the ITs run on the same database, so two settings differ from ./teamdesk up:
    # its connections are named, so that DatabaseOutageIT, which kills the backends of its own server, leaves
    # them alone; and its timers are off, so that its sweeps never take the rows other classes' servers are to
    # move (ProductionTimersIT counts the rows one transaction of its own dispatch sweep marks). A task created
    # through its API is dispatched by its INSERT, which is all the contract and client ITs need.
    case "$TEAMDESK_DB_URL" in
        *ApplicationName=*) ;;
        *\?*) TEAMDESK_DB_URL="$TEAMDESK_DB_URL&ApplicationName=teamdesk-contract-server" ;;
        *) TEAMDESK_DB_URL="$TEAMDESK_DB_URL?ApplicationName=teamdesk-contract-server" ;;
    esac
    export TEAMDESK_DB_URL TEAMDESK_TIMERS_ENABLED=false
    if pid=$(running_pid); then
        die "a contract server from an earlier run is still up (pid $pid): scripts/contract-server.sh stop"
    fi
    mkdir -p "$DIR" "$(dirname "$SPEC")"
    say "the watchdog's owner: pid ${CONTRACT_OWNER:-$PPID} $(tr '\0' ' ' <"/proc/${CONTRACT_OWNER:-$PPID}/cmdline" 2>/dev/null | head -c 80)"
    rm -f "$URL_FILE" "$SPEC" "$PID_FILE"
    port=$FIRST_PORT
    while port_taken "$port"; do
        port=$((port + 1))
        [ "$port" -lt $((FIRST_PORT + 50)) ] || die "no free port in $FIRST_PORT..$((FIRST_PORT + 49))"
    done
    url="http://127.0.0.1:$port"
    say "java -jar target/payara-micro.jar --deploy ${WAR#"$ROOT"/} --contextroot / --port $port --nocluster --prebootcommandfile server-config/pre-boot-commands.asadmin (Redis prefix $TEAMDESK_REDIS_PREFIX, log ${LOG_FILE#"$ROOT"/})"
    # The JVM options of ./teamdesk up (scripts/lib/server.sh) plus the quicker-start ones of the tests' servers
    # (arquillian.xml). A session of its own: the inner shell writes its pid and becomes java.
    # shellcheck disable=SC2016 # $$, $1 and $@ belong to the inner shell
    setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' contract-server "$PID_FILE" \
        "$JAVA" -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
        -XX:ThreadPriorityPolicy=1 -XX:JavaPriority1_To_OSPriority=19 -XX:+RecordDynamicDumpInfo \
        -Dorg.glassfish.grizzly.http.STRICT_HEADER_VALUE_VALIDATION_RFC_9110=false \
        -jar "$MICRO_JAR" --deploy "$WAR" --contextroot / --port "$port" --nocluster \
        --prebootcommandfile "$PRE_BOOT" >"$LOG_FILE" 2>&1 </dev/null &
    deadline=$((SECONDS + 10))
    until [ -s "$PID_FILE" ]; do
        [ "$SECONDS" -lt "$deadline" ] || die "the server process did not start (no pid file)"
        sleep 0.2
    done
    pid=$(cat "$PID_FILE")
    # The watchdog: when the process that started us (Maven) is gone, stop the server (SIGTERM, SIGKILL after
    # STOP_TIMEOUT s) and, given the classpath, delete its Redis keys.
    owner=${CONTRACT_OWNER:-$PPID}
    # shellcheck disable=SC2016 # the inner shell's variables
    setsid bash -c 'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 2; done
        kill -0 "$2" 2>/dev/null || exit 0
        kill -TERM "$2"
        for _ in $(seq 1 "$3"); do kill -0 "$2" 2>/dev/null || break; sleep 1; done
        kill -KILL "$2" 2>/dev/null
        if [ -n "$4" ]; then "$5" -cp "$4" com.teamdesk.tasks.testing.ContractServerServices after "$6"; fi' \
        contract-watchdog "$owner" "$pid" "$STOP_TIMEOUT" "$CLEANUP_CLASSPATH" "$JAVA" \
        "$DIR/redis-prefix" >>"$DIR/watchdog.log" 2>&1 </dev/null &
    echo $! >"$WATCHDOG_FILE"
    say "pid $pid on port $port; waiting up to $HEALTH_TIMEOUT s for $url/health"
    deadline=$((SECONDS + HEALTH_TIMEOUT))
    until curl -fs -o /dev/null --max-time 5 "$url/health"; do
        if grep -q -E 'GrizzlyProxy is NULL|java\.net\.BindException|Failed to start, exiting' "$LOG_FILE" 2>/dev/null; then
            log_tail
            stop
            die "Payara Micro failed to start (see the log above)"
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            log_tail
            rm -f "$PID_FILE"
            die "the server exited during startup (see the log above)"
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            log_tail
            say "/health answered: $(curl -sS --max-time 5 "$url/health" 2>&1 | head -c 400 || true)"
            stop
            die "not healthy within $HEALTH_TIMEOUT s"
        fi
        sleep 1
    done
    say "healthy after $((SECONDS - start)) s"
    curl -fsS --max-time 30 -H 'Accept: application/json' -o "$SPEC" "$url/openapi" ||
        { stop; die "GET $url/openapi failed"; }
    [ "$(head -c 1 "$SPEC")" = "{" ] && grep -q '"openapi"' "$SPEC" ||
        { stop; die "GET $url/openapi (Accept: application/json) did not answer an OpenAPI document in JSON: $(head -c 300 "$SPEC")"; }
    class_archive "$pid"
    echo "$url/" >"$URL_FILE"
    say "GET /openapi -> ${SPEC#"$ROOT"/} ($(wc -c <"$SPEC") bytes); server stays up for the ITs: $url/"
}

CLEANUP_CLASSPATH="${2:-}"
case "${1:-}" in
    start) start ;;
    stop) stop ;;
    *) die "usage: $0 start|stop" ;;
esac
