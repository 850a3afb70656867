#!/usr/bin/env bash
# ./teamdesk server-smoke: the same WAR on the full Payara Server 6 (issue 14 part 4).
#
# Fetches fish.payara.distributions:payara:<the Micro version of pom.xml>:zip from Maven Central,
# unpacks it into target/payara-server, creates a domain on free ports, configures it the way a
# Payara Server operator would (asadmin: system properties, a password alias, JVM options, `set`),
# deploys target/teamdesk-tasks.war at /, runs the main job's smoke through the API (an export to
# COMPLETED with its CSV downloaded, a reminder to COMPLETED), shows the EJB timers and the operator
# API, then stops the domain and cleans up, also on failure or Ctrl-C. docs/operations.md
# "Payara Server" explains every step; the last run's output is pasted there.
#
# Uses its own database (teamdesk_server_smoke, dropped and recreated) and its own Redis prefix, so
# it never touches ./teamdesk up's or the tests' data. Exit status 0 only when every step passed.
set -euo pipefail

# The launcher's functions (app_env, ensure_*, prepare_database, mint_token, ...) without running it.
# shellcheck source=../teamdesk
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/teamdesk"

SMOKE_DB="${TEAMDESK_SMOKE_DB:-teamdesk_server_smoke}"
SMOKE_PREFIX="${TEAMDESK_SMOKE_REDIS_PREFIX:-teamdesk-server-smoke}"
SMOKE_TIMEOUT="${TEAMDESK_SMOKE_TIMEOUT:-180}"   # seconds for /health/ready, and for each task
SERVER_VERSION="${TEAMDESK_PAYARA_SERVER_VERSION:-$(sed -n 's:.*<payara.micro.version>\(.*\)</payara.micro.version>.*:\1:p' "$ROOT/pom.xml" | head -n 1)}"
DIST_DIR="$ROOT/target/payara-dist"
DIST_ZIP="$DIST_DIR/payara-$SERVER_VERSION.zip"
SERVER_DIR="$ROOT/target/payara-server"
ASADMIN="$SERVER_DIR/payara6/bin/asadmin"
DOMAIN=teamdesk-smoke
DOMAIN_DIR="$SERVER_DIR/domains"
SERVER_LOG="$DOMAIN_DIR/$DOMAIN/logs/server.log"
SMOKE_LOG="$RUN_DIR/server-smoke.asadmin.log"   # every asadmin command and its output
KEPT_LOG="$RUN_DIR/server-smoke.server.log"     # the domain's server.log, copied at the end
APP_NAME=teamdesk-tasks
REMINDER_TICKET=820f82b0-7e35-b7d9-659e-dfe1bc2d36a1  # demo ticket 8 (PENDING, assigned to chen)

ADMIN_PORT='' HTTP_PORT='' SMOKE_URL='' PW_FILE='' TMP='' DOMAIN_STARTED=0 PASSED=0 T0=$SECONDS

elapsed() { printf '%3ds' "$((SECONDS - T0))"; }
sstep() { step "[$(elapsed)] $*"; }
fail() { # fail <message>: like die, with the server log's tail when there is one
    if [ -f "$SERVER_LOG" ]; then
        printf '\n%s--- last 60 lines of %s ---%s\n' "$DIM" "${SERVER_LOG#"$ROOT"/}" "$R" >&2
        tail -n 60 "$SERVER_LOG" | cut -c1-400 >&2 || true
        printf '%s--- end of server log ---%s\n' "$DIM" "$R" >&2
    fi
    die "server-smoke FAILED at $(elapsed | tr -d ' '): $*"
}

# The server must see only the domain's configuration: an inherited TEAMDESK_* or MP_JWT_* variable
# would be one more MicroProfile Config source (environment, ordinal 300) on top of it. So every
# asadmin runs without them (start-domain's server process inherits asadmin's environment).
CLEAN_ENV=(env)
clean_env() { # fills CLEAN_ENV: env -u for each such variable exported now
    local var
    CLEAN_ENV=(env)
    for var in $(compgen -e | grep -E '^(TEAMDESK_|MP_JWT_)' || true); do CLEAN_ENV+=(-u "$var"); done
}

asadmin() { # asadmin <subcommand> [args]: against this domain's DAS; output to the log, shown on failure
    local out rc=0 global=(--interactive=false)
    [ -z "$ADMIN_PORT" ] || global+=(--host 127.0.0.1 --port "$ADMIN_PORT")
    clean_env
    printf '\n$ asadmin %s\n' "$*" >>"$SMOKE_LOG"
    out=$("${CLEAN_ENV[@]}" "$ASADMIN" "${global[@]}" "$@" 2>&1 </dev/null) || rc=$?
    printf '%s\n' "$out" >>"$SMOKE_LOG"
    if [ "$rc" -ne 0 ]; then
        printf '%s\n' "$out" | tail -n 30 >&2
        fail "asadmin $1 exited with $rc (output above; all asadmin output in ${SMOKE_LOG#"$ROOT"/})"
    fi
    printf '%s\n' "$out"
}

asadmin_escape() { # a value for create-system-properties: ':' separates properties, '=' key and value
    local v=${1//\\/\\\\}
    v=${v//:/\\:}
    printf '%s' "${v//=/\\=}"
}

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    set +e
    clean_env
    if [ "$DOMAIN_STARTED" = 1 ]; then
        step "[$(elapsed)] Stopping the domain: asadmin stop-domain $DOMAIN"
        if "${CLEAN_ENV[@]}" "$ASADMIN" stop-domain --domaindir "$DOMAIN_DIR" "$DOMAIN" >>"$SMOKE_LOG" 2>&1; then
            ok "stopped"
        else
            warn "stop-domain failed; killing the domain's JVM"
            "${CLEAN_ENV[@]}" "$ASADMIN" stop-domain --kill=true --domaindir "$DOMAIN_DIR" "$DOMAIN" >>"$SMOKE_LOG" 2>&1 ||
                warn "could not stop the domain: look for a java process with $DOMAIN_DIR/$DOMAIN in its command line"
        fi
    fi
    [ -z "$PW_FILE" ] || rm -f "$PW_FILE"
    [ -z "$TMP" ] || rm -rf "$TMP"
    [ ! -f "$SERVER_LOG" ] || cp -f "$SERVER_LOG" "$KEPT_LOG"
    if [ "$PASSED" = 1 ]; then
        step "[$(elapsed)] Cleaning up: database $SMOKE_DB, Redis keys $SMOKE_PREFIX:*, $(basename "$SERVER_DIR")/"
        pg_admin -c "DROP DATABASE IF EXISTS $SMOKE_DB WITH (FORCE)" >/dev/null 2>&1 || warn "could not drop $SMOKE_DB"
        redis-cli -u "$TEAMDESK_REDIS_URL" --scan --pattern "$SMOKE_PREFIX:*" 2>/dev/null |
            xargs -r -n 200 redis-cli -u "$TEAMDESK_REDIS_URL" del >/dev/null 2>&1 || warn "could not delete the Redis keys"
        rm -rf "$SERVER_DIR"
        ok "done (server log kept in ${KEPT_LOG#"$ROOT"/}; the distribution zip stays in ${DIST_DIR#"$ROOT"/})"
        printf '\n%sserver-smoke PASSED in %d s%s\n' "$GRN$B" "$((SECONDS - T0))" "$R"
    else
        printf '\n%sserver-smoke FAILED after %d s.%s Kept for a look: %s, %s, database %s, %s\n' \
            "$RED$B" "$((SECONDS - T0))" "$R" "${KEPT_LOG#"$ROOT"/}" "${SMOKE_LOG#"$ROOT"/}" "$SMOKE_DB" \
            "${SERVER_DIR#"$ROOT"/}" >&2
        [ "$rc" -ne 0 ] || rc=1
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'printf "\ninterrupted\n" >&2; exit 130' INT TERM

# ----------------------------------------------------------------------------------------

port_free() { # nothing listens on it, and no socket (any state, e.g. an outgoing connection) uses it
    if command -v ss >/dev/null 2>&1; then
        [ -z "$(ss -Htan "( sport = :$1 )" 2>/dev/null)" ]
    else
        ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
    fi
}

pick_portbase() { # a portbase whose ports (create-domain: base + 9..86) are all free here
    # Below Linux's ephemeral range (32768-60999): there an outgoing connection may take a port
    # between this check and the server's bind (create-domain then says "Port ... is in use").
    local base off start
    start=$((20000 + (RANDOM % 100) * 100))
    for ((base = start; base < 32600; base += 100)); do
        for off in 9 37 38 39 48 49 59 66 76 80 81 86; do
            port_free $((base + off)) || continue 2
        done
        echo "$base"
        return 0
    done
    return 1
}

http() { # http <method> <path> <token> [json]: body to $TMP/body, headers to $TMP/headers; prints the status
    local args=(-sS -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' --max-time 30 -X "$1" -H "Authorization: Bearer $3")
    [ $# -lt 4 ] || args+=(-H 'Content-Type: application/json' --data "$4")
    curl "${args[@]}" "$SMOKE_URL$2" || fail "$1 $2: curl error"
}

expect() { # expect <wanted status> <got> <what>
    [ "$2" = "$1" ] || fail "$3: expected HTTP $1, got $2: $(head -c 600 "$TMP/body")"
}

wait_task() { # wait_task <id> <token>: until COMPLETED (fails on FAILED or timeout); prints the states seen
    local id=$1 token=$2 deadline=$((SECONDS + SMOKE_TIMEOUT)) status progress last=''
    while :; do
        expect 200 "$(http GET "/api/v1/tasks/$id" "$token")" "GET /api/v1/tasks/$id"
        status=$(jq -r .status "$TMP/body")
        progress=$(jq -r '.progress // 0' "$TMP/body")
        [ "$status $progress" = "$last" ] || info "$status $progress%"
        last="$status $progress"
        case "$status" in
            COMPLETED) return 0 ;;
            FAILED) fail "task $id FAILED: $(jq -c '{lastError, attempts, run}' "$TMP/body")" ;;
        esac
        [ "$SECONDS" -lt "$deadline" ] || fail "task $id still $status after $SMOKE_TIMEOUT s"
        sleep 0.5
    done
}

# ----------------------------------------------------------------------------------------

fetch_dist() { # the distribution zip into target/payara-dist, unless a sound one is there
    if [ "${TEAMDESK_SMOKE_PREPARED:-0}" = 1 ] && [ -s "$DIST_ZIP" ]; then
        ok "fetched and checked before the tests: ${DIST_ZIP#"$ROOT"/}"
    elif [ -s "$DIST_ZIP" ] && unzip -tq "$DIST_ZIP" >/dev/null 2>&1; then
        ok "cached: ${DIST_ZIP#"$ROOT"/}"
    else
        info "mvn dependency:copy -> ${DIST_DIR#"$ROOT"/} (~170 MB the first time; log .run/server-smoke.fetch.log)"
        mvn -B org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
            -Dartifact="fish.payara.distributions:payara:$SERVER_VERSION:zip" -DoutputDirectory="$DIST_DIR" \
            >"$RUN_DIR/server-smoke.fetch.log" 2>&1 </dev/null ||
            { tail -n 30 "$RUN_DIR/server-smoke.fetch.log" >&2; die "Could not fetch the Payara Server distribution from Maven Central (log above)."; }
        ok "$(du -h "$DIST_ZIP" | cut -f1) ${DIST_ZIP#"$ROOT"/}"
    fi
}

main_smoke() {
    local base t code id csv token ops ready deadline out

    [ -n "$SERVER_VERSION" ] || die "Could not read payara.micro.version from pom.xml (set TEAMDESK_PAYARA_SERVER_VERSION)."
    app_env
    # The smoke's own database and Redis prefix; host, port, role and password as for ./teamdesk up.
    TEAMDESK_DB_URL="jdbc:postgresql://$DB_HOST:$DB_PORT/$SMOKE_DB?stringtype=unspecified"
    parse_db_url "$TEAMDESK_DB_URL"
    MP_JWT_VERIFY_PUBLICKEY_LOCATION="file:$DEV_PUBLIC_KEY"
    MP_JWT_VERIFY_ISSUER="$DEV_ISSUER"
    mkdir -p "$RUN_DIR"
    : >"$SMOKE_LOG"

    printf '%sTeamDesk Tasks on Payara Server %s (full distribution)%s  %s\n' "$B" "$SERVER_VERSION" "$R" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    sstep "Prerequisites"
    check_hostname
    ensure_tools jq
    ensure_cmd unzip unzip
    ensure_services
    prepare_database "$SMOKE_DB" fresh
    redis-cli -u "$TEAMDESK_REDIS_URL" --scan --pattern "$SMOKE_PREFIX:*" 2>/dev/null |
        xargs -r -n 200 redis-cli -u "$TEAMDESK_REDIS_URL" del >/dev/null 2>&1 || true   # a failed run's keys
    if ! needs_build; then
        ok "target/teamdesk-tasks.war is up to date"
    elif [ "${TEAMDESK_SMOKE_PREPARED:-0}" = 1 ]; then # beside ./teamdesk test's Maven: never a second build
        die "target/teamdesk-tasks.war is older than pom.xml or src/main (changed while the tests ran?)"
    else
        build
    fi

    sstep "Payara Server $SERVER_VERSION: fish.payara.distributions:payara:$SERVER_VERSION:zip (Maven Central)"
    fetch_dist
    rm -rf "$SERVER_DIR"
    mkdir -p "$SERVER_DIR"
    unzip -q "$DIST_ZIP" -d "$SERVER_DIR" || die "Could not unpack $DIST_ZIP"
    [ -x "$ASADMIN" ] || die "No $ASADMIN after unpacking $DIST_ZIP"
    ok "unpacked into ${SERVER_DIR#"$ROOT"/}/payara6"

    sstep "Creating domain $DOMAIN on free ports"
    # A port can still be taken between the check and create-domain's own check ("Port ... is in use"):
    # then another free range is tried, at most three times.
    local try created=0
    clean_env
    for try in 1 2 3; do
        base=$(pick_portbase) || die "No free port range found for the domain (tried portbases 20000-32500)."
        info "asadmin create-domain --nopassword --portbase $base --domaindir ${DOMAIN_DIR#"$ROOT"/} $DOMAIN"
        if "${CLEAN_ENV[@]}" "$ASADMIN" --interactive=false create-domain --nopassword --portbase "$base" \
            --domaindir "$DOMAIN_DIR" "$DOMAIN" >>"$SMOKE_LOG" 2>&1 </dev/null; then
            created=1
            break
        fi
        info "create-domain failed (try $try of 3; a port taken meanwhile?), another range"
        rm -rf "${DOMAIN_DIR:?}/$DOMAIN"
    done
    [ "$created" = 1 ] || fail "asadmin create-domain failed three times (output in ${SMOKE_LOG#"$ROOT"/})"
    ADMIN_PORT=$((base + 48)) HTTP_PORT=$((base + 80))
    SMOKE_URL="http://127.0.0.1:$HTTP_PORT"
    ok "admin port $ADMIN_PORT, HTTP port $HTTP_PORT (and base+37..86 for IIOP, JMS, Hazelcast, ...)"

    sstep "Starting the domain (to configure it): asadmin start-domain $DOMAIN"
    DOMAIN_STARTED=1
    asadmin start-domain --domaindir "$DOMAIN_DIR" "$DOMAIN" >/dev/null
    ok "DAS up; log ${SERVER_LOG#"$ROOT"/}"

    sstep "Configuration the Payara Server way (asadmin; no TEAMDESK_* environment reaches the server)"
    # The secret goes into the domain's password alias store through a 0600 file, never a command line.
    PW_FILE=$(mktemp "$RUN_DIR/server-smoke.pw.XXXXXX")
    chmod 600 "$PW_FILE"
    printf 'AS_ADMIN_ALIASPASSWORD=%s\n' "$TEAMDESK_DB_PASSWORD" >"$PW_FILE"
    asadmin --passwordfile "$PW_FILE" create-password-alias teamdesk.db.password >/dev/null
    info "create-password-alias teamdesk.db.password        (value from a 0600 --passwordfile)"
    local props=(
        "teamdesk.db.url=$TEAMDESK_DB_URL"
        "teamdesk.db.user=$TEAMDESK_DB_USER"
        "teamdesk.db.password=\${ALIAS=teamdesk.db.password}"
        "teamdesk.redis.url=$TEAMDESK_REDIS_URL"
        "teamdesk.redis.prefix=$SMOKE_PREFIX"
        "mp.jwt.verify.publickey.location=$MP_JWT_VERIFY_PUBLICKEY_LOCATION"
        "mp.jwt.verify.issuer=$MP_JWT_VERIFY_ISSUER"
    )
    local p joined=''
    for p in "${props[@]}"; do
        info "create-system-properties $p"
        joined+="${joined:+:}$(asadmin_escape "${p%%=*}")=$(asadmin_escape "${p#*=}")"
    done
    asadmin create-system-properties "$joined" >/dev/null
    # An application setting (read with @ConfigProperty) in MicroProfile Config's domain source.
    info "set-config-property --source=domain teamdesk.demo.seed=true   (the demo data, as TEAMDESK_DEMO_SEED)"
    asadmin set-config-property --source=domain --propertyName=teamdesk.demo.seed --propertyValue=true >/dev/null
    info "create-jvm-options -Dorg.glassfish.grizzly.http.STRICT_HEADER_VALUE_VALIDATION_RFC_9110=false"
    asadmin create-jvm-options '-Dorg.glassfish.grizzly.http.STRICT_HEADER_VALUE_VALIDATION_RFC_9110=false' >/dev/null
    # R46: background executions at OS nice 19 (':' separates options, so the options' own colons are escaped)
    info "create-jvm-options -XX:ThreadPriorityPolicy=1:-XX:JavaPriority1_To_OSPriority=19"
    asadmin create-jvm-options '-XX\:ThreadPriorityPolicy=1:-XX\:JavaPriority1_To_OSPriority=19' >/dev/null
    # The Micro pre-boot commands, applied to the domain: Payara Server's listener is http-listener-1
    # (Micro's is http-listener); anything but `set` has no automatic translation here, so it stops.
    local line n=0
    while IFS= read -r line || [ -n "$line" ]; do
        line=${line%%#*}
        line=$(printf '%s' "$line" | sed 's/[[:space:]]*$//; s/^[[:space:]]*//')
        [ -n "$line" ] || continue
        case "$line" in
            'set '*.protocol.http-listener.*)
                line=${line//.protocol.http-listener./.protocol.http-listener-1.} ;;
            'set '*) ;;
            *) die "server-config/pre-boot-commands.asadmin has '$line', which this script cannot translate for
       Payara Server: add its Server equivalent to scripts/server-smoke.sh and docs/operations.md." ;;
        esac
        info "${line}"
        # shellcheck disable=SC2086 # one asadmin command per line, no spaces inside arguments
        asadmin $line >/dev/null
        n=$((n + 1))
    done <"$PRE_BOOT"
    # Server-only: Payara Micro's built-in domain.xml already has xpowered-by="false"; Payara Server's
    # default sends "X-Powered-By: Servlet/6.0 JSP/3.1 (Payara Server ...)".
    line='set configs.config.server-config.network-config.protocols.protocol.http-listener-1.http.xpowered-by=false'
    info "$line   (Server only)"
    # shellcheck disable=SC2086
    asadmin $line >/dev/null
    ok "$n pre-boot 'set' commands applied (server-config/pre-boot-commands.asadmin, listener http-listener-1), plus xpowered-by"

    sstep "Restarting the domain (JVM options and password aliases are read at start)"
    asadmin restart-domain --domaindir "$DOMAIN_DIR" "$DOMAIN" >/dev/null
    ok "restarted"

    sstep "asadmin deploy --contextroot / --name $APP_NAME target/teamdesk-tasks.war"
    t=$SECONDS
    asadmin deploy --contextroot / --name "$APP_NAME" "$WAR" >/dev/null
    ok "deployed in $((SECONDS - t)) s: $(asadmin list-applications | grep "^$APP_NAME" | tr -s ' ')"

    sstep "Waiting for $SMOKE_URL/health/ready (up to $SMOKE_TIMEOUT s)"
    # 200 is not enough: Payara Server's /health answers UP with no checks when the application is not
    # deployed. The application's own check (teamdesk-tasks) must be there and UP.
    TMP=$(mktemp -d)
    deadline=$((SECONDS + SMOKE_TIMEOUT))
    until ready=$(curl -fsS --max-time 5 "$SMOKE_URL/health/ready" 2>/dev/null) &&
        [ "$(jq -r '[.checks[] | select(.name == "teamdesk-tasks" and .status == "UP")] | length' <<<"$ready" 2>/dev/null)" = 1 ]; do
        [ "$SECONDS" -lt "$deadline" ] ||
            fail "/health/ready did not report teamdesk-tasks UP within $SMOKE_TIMEOUT s; last answer: ${ready:-(none)}"
        sleep 1
    done
    ok "$(jq -c '.checks[] | select(.name == "teamdesk-tasks") | .data' <<<"$ready")"

    sstep "The pre-boot equivalents took effect"
    curl -sS -o /dev/null -D "$TMP/headers" --max-time 10 "$SMOKE_URL/health/live" || fail "GET /health/live: curl error"
    if grep -qiE '^(Server|X-Powered-By):' "$TMP/headers"; then fail "the product is still advertised: $(grep -iE '^(Server|X-Powered-By):' "$TMP/headers" | tr -d '\r')"; fi
    ok "no Server or X-Powered-By header"
    code=$(curl -sS -o "$TMP/body" -w '%{http_code} %{content_type}' --max-time 10 -X TRACE "$SMOKE_URL/api/v1/tasks") || fail "TRACE: curl error"
    [ "${code%% *}" = 405 ] && [[ "$code" == *problem+json* ]] ||
        fail "TRACE should reach the application and get 405 problem+json, got: $code $(head -c 300 "$TMP/body")"
    ok "TRACE -> $code (the application's answer, not the listener's)"
    code=$(curl -sS -o "$TMP/body" -w '%{http_code} %{content_type}' --max-time 10 -H "X-Long: $(head -c 20000 /dev/zero | tr '\0' a)" "$SMOKE_URL/api/v1/tasks") || fail "long header: curl error"
    [ "${code%% *}" = 431 ] || fail "a 20 000-character header should reach the application and get 431, got: $code"
    ok "20 000-character header -> $code (header buffer 256 KiB)"

    sstep "The main job: an export as ada (OWNER of team demo)"
    token=$(mint_token ada)
    local request='{"kind":"EXPORT","scope":"TEAM","filters":{"status":["OPEN","PENDING"]},"timeZone":"Asia/Shanghai"}'
    expect 202 "$(http POST "/api/v1/teams/$DEMO_TEAM_ID/tasks" "$token" "$request")" "POST export"
    id=$(jq -r .id "$TMP/body")
    ok "202 Accepted, task $id"
    wait_task "$id" "$token"
    ok "$(jq -c '{status, run, attempts, progress, resultSummary}' "$TMP/body")"
    csv="$TMP/export.csv"
    code=$(curl -sS -o "$csv" -w '%{http_code} %{content_type}' --max-time 60 -H "Authorization: Bearer $token" \
        "$SMOKE_URL/api/v1/tasks/$id/result") || fail "download: curl error"
    [ "${code%% *}" = 200 ] || fail "GET /api/v1/tasks/$id/result answered $code"
    [ "$(wc -l <"$csv")" -gt 1 ] || fail "the CSV has no data rows"
    ok "CSV downloaded: $(wc -l <"$csv") lines, $(wc -c <"$csv") bytes ($code); first line: $(head -n 1 "$csv" | cut -c1-100)"

    sstep "A reminder about demo ticket 8, as ada"
    expect 202 "$(http POST "/api/v1/teams/$DEMO_TEAM_ID/tasks" "$token" \
        "{\"kind\":\"REMINDER\",\"ticketId\":\"$REMINDER_TICKET\",\"message\":\"server-smoke: please look at this\",\"recipients\":\"ASSIGNEE\"}")" "POST reminder"
    id=$(jq -r .id "$TMP/body")
    ok "202 Accepted, task $id"
    wait_task "$id" "$token"
    ok "$(jq -c '{status, run, attempts, resultSummary}' "$TMP/body")"

    sstep "EJB timers on Payara Server"
    out=$(asadmin list-timers)
    info "asadmin list-timers: $(printf '%s' "$out" | grep -v '^Command' | tr '\n' ' ')(persistent timers only: ours are non-persistent)"
    ops=$(mint_token ops)
    deadline=$((SECONDS + 40))
    while :; do   # dispatch ticks every 5 s, recovery every 15 s: wait until both ran on their own
        expect 200 "$(http GET /api/v1/admin/timers "$ops")" "GET /api/v1/admin/timers (ops)"
        [ "$(jq '[.items[] | select(.thisInstance) | .timers[] | select((.name == "dispatch" or .name == "recovery") and .runs >= 1)] | length' "$TMP/body")" != 2 ] || break
        [ "$SECONDS" -lt "$deadline" ] || fail "dispatch and recovery have not both run on their schedule: $(jq -c . "$TMP/body" | head -c 800)"
        sleep 2
    done
    ok "GET /api/v1/admin/timers: dispatch and recovery ran on their @Schedule"
    local name
    for name in $(jq -r '.items[] | select(.thisInstance) | .timers[] | select(.runs < 1) | .name' "$TMP/body"); do
        # purge and idempotency tick once a minute: run them now (a one-shot EJB timeout on this instance)
        expect 200 "$(http POST "/api/v1/admin/timers/$name/run" "$ops")" "POST /api/v1/admin/timers/$name/run"
        ok "POST /api/v1/admin/timers/$name/run -> 200 $(jq -c '{runs, lastOutcome, lastHandled}' "$TMP/body")"
    done
    expect 200 "$(http GET /api/v1/admin/timers "$ops")" "GET /api/v1/admin/timers (ops)"
    jq -r '.items[] | select(.thisInstance) | .timers[] |
        "    \(.name | . + " " * (12 - length)) \(.schedule | . + " " * (22 - length)) runs=\(.runs) failures=\(.failures) last=\(.lastOutcome) next=\(.nextTimeout)"' "$TMP/body"
    [ "$(jq '[.items[] | select(.thisInstance) | .timers[] | select(.runs < 1 or .failures > 0)] | length' "$TMP/body")" = 0 ] ||
        fail "a sweep did not run or failed on Payara Server: $(jq -c '.items[] | select(.thisInstance) | .timers' "$TMP/body" | head -c 800)"
    ok "every sweep ran on Payara Server, none failed"

    sstep "Operator API"
    expect 200 "$(http GET /api/v1/admin/overview "$ops")" "GET /api/v1/admin/overview"
    [ "$(jq '[.counts[] | select(.status == "COMPLETED") | .count] | add' "$TMP/body")" -ge 2 ] ||
        fail "the overview does not count the two COMPLETED tasks: $(jq -c .counts "$TMP/body" | head -c 600)"
    ok "overview: COMPLETED $(jq -c '[.counts[] | select(.count > 0) | "\(.status)/\(.kind)=\(.count)"]' "$TMP/body"), dueUndispatched $(jq .dueUndispatched "$TMP/body"), queue $(jq -c .queue "$TMP/body")"
    expect 200 "$(http GET /api/v1/admin/workers "$ops")" "GET /api/v1/admin/workers"
    [ "$(jq '[.items[] | select(.state == "live")] | length' "$TMP/body")" -ge 1 ] || fail "no live worker in /admin/workers: $(head -c 600 "$TMP/body")"
    ok "workers: $(jq -c '[.items[] | select(.state == "live") | {host, concurrency, busy}]' "$TMP/body")"
    expect 200 "$(http GET /api/v1/admin/queue "$ops")" "GET /api/v1/admin/queue"
    ok "queue: $(jq -c . "$TMP/body")"
    expect 403 "$(http GET /api/v1/admin/overview "$token")" "GET /api/v1/admin/overview as ada (no operator)"
    ok "ada (team owner, not operator) -> 403"

    PASSED=1
}

if [ "${1:-}" = --fetch ]; then # ./teamdesk test, before its Maven: only the download (never two Mavens fetching at once)
    trap - EXIT
    [ -n "$SERVER_VERSION" ] || die "Could not read payara.micro.version from pom.xml (set TEAMDESK_PAYARA_SERVER_VERSION)."
    mkdir -p "$RUN_DIR"
    fetch_dist
    exit 0
fi
main_smoke "$@"
