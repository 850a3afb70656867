#!/usr/bin/env bash
# Checks the launcher's JDK selection, hostname check, demo ids (read from the seed), --instances/down, the port check
# without curl and the "missing and could not be installed" messages, with fake JDKs, a fake PATH and a stubbed apt
# (nothing is installed, nothing outside a temporary directory is touched). Needs only a minimal Debian (bash, coreutils,
# perl-base): scripts/fresh-machine.sh runs it there too. Run: scripts/test-launcher.sh
# The cases are code in single-quoted strings and stubs that the launcher calls: SC2016/SC2317 do not apply;
# the launcher is sourced from a path known at run time (SC1091); the cases set its PATH and variables (SC2123, SC2034).
# shellcheck disable=SC1091,SC2016,SC2317,SC2123,SC2034
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILURES=0

# The only tools on the cases' PATH besides the fakes: no real java is visible.
mkdir -p "$TMP/tools"
for tool in sed head dirname readlink tr cat mkdir cp chmod ln rm id env grep tail mktemp sort seq; do
    ln -s "$(command -v "$tool")" "$TMP/tools/$tool"
done

bash -n "$ROOT/teamdesk" || { echo "FAIL: bash -n teamdesk"; exit 1; }
for lib in "$ROOT"/scripts/lib/*.sh; do bash -n "$lib" || { echo "FAIL: bash -n $lib"; exit 1; }; done

# fake_java <dir> <major> [jre]: a java printing the version line of OpenJDK <major>, with javac unless jre
fake_java() {
    mkdir -p "$1/bin"
    printf '#!/bin/sh\necho "openjdk version \\"%s.0.9\\" 2025-10-21" >&2\n' "$2" >"$1/bin/java"
    chmod +x "$1/bin/java"
    if [ "${3:-}" != jre ]; then cp "$1/bin/java" "$1/bin/javac"; fi
}

# run_case <name> <expected JAVA_HOME suffix or "die:<text>"> <setup commands>: ensure_java in a subshell
run_case() {
    local name=$1 expected=$2 setup=$3 out rc=0
    out=$( (
        cd "$TMP" && rm -rf case && mkdir -p case/jvm case/path case/apt
        export TEAMDESK_JVM_ROOT="$TMP/case/jvm"
        unset JAVA_HOME
        # shellcheck source=../teamdesk
        source "$ROOT/teamdesk"
        PATH="$TMP/case/path:$TMP/tools"
        apt_try_update() { :; }
        apt_try_install() { # installs a fake JDK where Debian's package would put it
            local v
            v=$(echo "$1" | tr -dc 0-9)
            echo "$*" >>"$TMP/case/apt/installed"
            fake_java "$JVM_ROOT/java-$v-openjdk-amd64" "$v"
        }
        eval "$setup"
        ensure_java >/dev/null
        echo "JAVA_HOME=${JAVA_HOME:-} installed=$(cat "$TMP/case/apt/installed" 2>/dev/null || true)"
    ) 2>&1) || rc=$?
    if [[ "$expected" == die:* ]]; then
        if [ "$rc" -ne 0 ] && [[ "$out" == *"${expected#die:}"* ]]; then echo "ok   $name"; return; fi
    elif [ "$rc" -eq 0 ] && [[ "$out" == *"$expected"* ]]; then
        echo "ok   $name"
        return
    fi
    echo "FAIL $name: expected '$expected', got (rc $rc): $out"
    FAILURES=$((FAILURES + 1))
}

run_case "java 17 on PATH is used as is" "JAVA_HOME= installed=" \
    'fake_java "$TMP/case/j17" 17; ln -s "$TMP/case/j17/bin/java" "$TMP/case/path/java"'
run_case "java 21 on PATH is used as is" "JAVA_HOME= installed=" \
    'fake_java "$TMP/case/j21" 21; ln -s "$TMP/case/j21/bin/java" "$TMP/case/path/java"'
run_case "java 25 on PATH: an installed 21 is chosen" "/case/jvm/java-21-openjdk-amd64 installed=" \
    'fake_java "$TMP/case/j25" 25; ln -s "$TMP/case/j25/bin/java" "$TMP/case/path/java"; fake_java "$JVM_ROOT/java-21-openjdk-amd64" 21'
run_case "java 11 on PATH, 17 and 21 installed: 17 first" "/case/jvm/java-17-openjdk-amd64 installed=" \
    'fake_java "$TMP/case/j11" 11; ln -s "$TMP/case/j11/bin/java" "$TMP/case/path/java"; fake_java "$JVM_ROOT/java-21-openjdk-amd64" 21; fake_java "$JVM_ROOT/java-17-openjdk-amd64" 17'
run_case "a JRE 17 on PATH is not enough" "/case/jvm/java-21-openjdk-arm64 installed=" \
    'fake_java "$TMP/case/jre" 17 jre; ln -s "$TMP/case/jre/bin/java" "$TMP/case/path/java"; fake_java "$JVM_ROOT/java-21-openjdk-arm64" 21'
run_case "JAVA_HOME pointing at 25 is replaced" "/case/jvm/java-21-openjdk-amd64 installed=" \
    'fake_java "$TMP/case/j25" 25; export JAVA_HOME="$TMP/case/j25"; fake_java "$JVM_ROOT/java-21-openjdk-amd64" 21'
run_case "no java, apt has 17 (Debian 12): installs 17" "installed=openjdk-17-jdk-headless" \
    'apt-cache() { echo "openjdk-$(echo "$2" | tr -dc 0-9)-jdk-headless | 1 | http://mirror.invalid/debian bookworm/main"; }'
run_case "no java, apt has only 21 (Debian 13): installs 21" "installed=openjdk-21-jdk-headless" \
    'apt-cache() { case "$2" in openjdk-21-*) echo "openjdk-21-jdk-headless | 21.0.9 | trixie";; esac; }'
run_case "no java, apt has neither: clear error" "die:neither openjdk-17-jdk-headless nor openjdk-21-jdk-headless" \
    'apt-cache() { :; }'

# check_hostname: an unresolvable name stops with the fix; the machine's own name passes
out=$( (source "$ROOT/teamdesk"; hostname() { echo no-such-host-teamdesk.invalid; }; check_hostname) 2>&1) && rc=0 || rc=$?
if [ "$rc" -ne 0 ] && [[ "$out" == *"UnknownHostException"* ]] && [[ "$out" == *"/etc/hosts"* ]]; then
    echo "ok   an unresolvable hostname stops with the fix"
else
    echo "FAIL unresolvable hostname: rc $rc: $out"
    FAILURES=$((FAILURES + 1))
fi
if getent hosts "$(hostname)" >/dev/null 2>&1; then
    out=$( (source "$ROOT/teamdesk"; check_hostname) 2>&1) && rc=0 || rc=$?
    if [ "$rc" -eq 0 ]; then echo "ok   this machine's hostname passes"; else echo "FAIL own hostname: $out"; FAILURES=$((FAILURES + 1)); fi
fi

# listen <port>: a TCP listener on 127.0.0.1:<port> in the background (pid in LISTENER) with perl-base's
# IO::Socket::INET (on every Debian, minimal ones too); returns once the port accepts connections.
cat >"$TMP/listen.sh" <<'EOF'
listen() {
    perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $ARGV[0],
        Listen => 5, ReuseAddr => 1) or die "listen: $!\n"; close $c while $c = $s->accept' "$1" >/dev/null 2>&1 &
    LISTENER=$!
    for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done
    echo "the listener on $1 did not start"; return 1
}
EOF

# check <name> <command...>: one more case that passes when the command succeeds
check() {
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then echo "ok   $name"; else echo "FAIL $name: $out"; FAILURES=$((FAILURES + 1)); fi
}

# The demo ids come from the seed only: no UUID in the launcher, and the ones it reads are the seed's.
check "no UUID is copied into the launcher" bash -c "! grep -E -n '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}' '$ROOT/teamdesk' '$ROOT'/scripts/lib/*.sh"
check "users, ada's id and team demo come from the seed" bash -c "source '$ROOT/teamdesk'
    [ \"\$USERS\" = 'ada ben chen dana eli fang zed ops' ] || { echo \"USERS=\$USERS\"; exit 1; }
    grep -q \"('\$(user_id ada)', 'ada',\" \"\$SEED_SQL\" || exit 1
    grep -q \"('\$DEMO_TEAM_ID', 'demo',\" \"\$SEED_SQL\" || exit 1
    ! user_id nobody && ! user_id 'ada.*'"

# --instances: parsing, consecutive ports and per-instance files, and down stopping every instance.
check "--instances accepts 1..16 and refuses the rest" bash -c "source '$ROOT/teamdesk'
    [ \"\$(parse_instances 3)\" = 3 ] || exit 1
    for bad in 0 17 x -1 '' 010 08 0003 1x; do ( parse_instances \"\$bad\" ) >/dev/null 2>&1 && { echo \"accepted '\$bad'\"; exit 1; }; done; exit 0"
check "a TEAMDESK_PORT that is no port number, or a taken port of the range, is refused before anything starts" bash -c "
    for bad in abc 0 65536 08080 '80 80'; do
        ( export TEAMDESK_PORT=\"\$bad\"; source '$ROOT/teamdesk'; RUN_DIR='$TMP/runp'; check_ports 1 ) >/dev/null 2>&1 &&
            { echo \"accepted port '\$bad'\"; exit 1; }
    done
    source '$TMP/listen.sh'; listen 18191 || exit 1
    ( export TEAMDESK_PORT=18190; source '$ROOT/teamdesk'; RUN_DIR='$TMP/runp'; check_ports 2 ) >/dev/null 2>&1; rc=\$?
    kill \$LISTENER; [ \$rc != 0 ] || { echo 'port 18191 taken but accepted'; exit 1; }"
check "up --instances 3 starts three servers on consecutive ports, then waits for each" bash -c "
    export TEAMDESK_PORT=18180; source '$ROOT/teamdesk'; RUN_DIR='$TMP/run3'
    start_server() { echo \"start \$INSTANCE \$PORT \${PID_FILE##*/} \${LOG_FILE##*/}\" >>'$TMP/calls3'; }
    wait_healthy() { echo \"wait \$INSTANCE \$BASE_URL\" >>'$TMP/calls3'; }
    start_instances 3 >/dev/null
    diff <(cat '$TMP/calls3') <(printf '%s\n' 'start 1 18180 payara.pid payara.log' 'start 2 18181 payara-2.pid payara-2.log' \
        'start 3 18182 payara-3.pid payara-3.log' 'wait 1 http://127.0.0.1:18180' 'wait 2 http://127.0.0.1:18181' 'wait 3 http://127.0.0.1:18182')
    [ \"\$BASE_URL\" = http://127.0.0.1:18180 ]"
check "down stops every instance (fake servers)" bash -c "
    source '$ROOT/teamdesk'; RUN_DIR='$TMP/rundown'; STOP_TIMEOUT=10; mkdir -p \"\$RUN_DIR\"
    pids=''
    for i in 1 2 3; do
        instance_files \$i
        setsid bash -c 'exec -a payara-micro-fake sleep 300' </dev/null >/dev/null 2>&1 &
        echo \$! >\"\$PID_FILE\"; echo \$((18180 + i - 1)) >\"\$PORT_FILE\"; pids=\"\$pids \$!\"
    done
    [ \"\$(known_instances | tr '\n' ' ')\" = '1 2 3 ' ] || { echo \"known: \$(known_instances)\"; exit 1; }
    stop_instances >/dev/null
    for p in \$pids; do ! kill -0 \$p 2>/dev/null || { echo \"pid \$p still runs\"; kill \$p; exit 1; }; done
    [ -z \"\$(ls \"\$RUN_DIR\")\" ] || { ls \"\$RUN_DIR\"; exit 1; }"

# Issue 27: nothing is used before the step that installs it, and a missing tool is said as such.
# The port check (before anything is installed) with no curl on the PATH: free ports pass, a taken one is
# named, and no "command not found" is read as a taken port.
ports_without_curl() {
    local out rc=0 t
    mkdir -p "$TMP/nocurl"
    for t in timeout seq sort; do ln -sf "$(command -v "$t")" "$TMP/nocurl/$t"; done
    source "$TMP/listen.sh"
    listen 18194 || return 1
    out=$( (export TEAMDESK_PORT=18192; source "$ROOT/teamdesk"; PATH="$TMP/nocurl"; RUN_DIR="$TMP/runnc"
        if command -v curl >/dev/null 2>&1; then echo "curl is still on the PATH"; exit 1; fi
        check_ports 2 && echo "18192-18193 free" && check_ports 3) 2>&1) || rc=$?
    kill "$LISTENER"
    if [ "$rc" -ne 0 ] && [[ "$out" == *"18192-18193 free"* ]] && [[ "$out" == *"Something already answers on port 18194"* ]] &&
        [[ "$out" != *"not found"* ]]; then return 0; fi
    echo "rc $rc: $out"
    return 1
}
check "the port check needs no curl (free ports pass, a taken one is named)" ports_without_curl

# missing_tool <apt-get script or "none"> <expected message>: ensure_cmd jq jq with no jq, and apt-get as given
missing_tool() {
    local out rc=0 dir="$TMP/apt-$RANDOM"
    mkdir -p "$dir"
    if [ "$1" != none ]; then printf '#!/bin/sh\n%s\n' "$1" >"$dir/apt-get"; chmod +x "$dir/apt-get"; fi
    out=$( (source "$ROOT/teamdesk"; PATH="$dir:$TMP/tools"; can_be_root() { :; }; as_root() { "$@"; }
        ensure_cmd jq jq) 2>&1) || rc=$?
    if [ "$rc" -ne 0 ] && [[ "$out" == *"$2"* ]]; then return 0; fi
    echo "rc $rc: $out"
    return 1
}
check "a tool apt cannot install: 'jq is missing and could not be installed (apt-get install jq failed: ...)'" missing_tool \
    'case "$*" in *install*) echo "E: Unable to locate package jq" >&2; exit 100;; esac' \
    "jq is missing and could not be installed (apt-get install jq failed: E: Unable to locate package jq)."
check "apt-get update failing is named as the reason" missing_tool \
    'echo "E: The repository is not signed." >&2; exit 100' \
    "jq is missing and could not be installed (apt-get update failed: E: The repository is not signed.)."
check "an install that brings no command says so" missing_tool 'exit 0' \
    "jq is missing and could not be installed (apt-get install jq succeeded, but there is still no jq on the PATH)."
check "no apt-get at all says so" missing_tool none "jq is missing and could not be installed (there is no apt-get here"

# status with no PostgreSQL or Redis client: "unknown ... is missing", not "DOWN"
status_without_clients() {
    local out
    out=$( (source "$ROOT/teamdesk"; PATH="$TMP/tools"; RUN_DIR="$TMP/runstatus"; cmd_status) 2>&1) || return 1
    if [[ "$out" == *"postgres  unknown"*"pg_isready is missing"* ]] && [[ "$out" == *"redis     unknown"*"redis-cli is missing"* ]] &&
        [[ "$out" != *DOWN* ]]; then return 0; fi
    echo "$out"
    return 1
}
check "status says a missing client is missing, not that the service is down" status_without_clients
check "test skips the browser only when the integration tests are skipped" bash -c "source '$ROOT/teamdesk'
    ! runs_its -DskipITs && ! runs_its -q -DskipTests=true && runs_its && runs_its -Dit.test=ExportIT"

if [ "$FAILURES" -ne 0 ]; then
    echo "$FAILURES launcher check(s) failed"
    exit 1
fi
echo "all launcher checks passed"
