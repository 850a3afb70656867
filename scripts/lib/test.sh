# shellcheck shell=bash
# ./teamdesk test: a fresh test database, then mvn -B verify and the Payara Server smoke.
# Sourced by ./teamdesk (test.sh); uses its variables (ROOT, RUN_DIR, ...) and scripts/lib/output.sh.

# The tests append every Redis prefix they (or the servers they start) write under to this file, one a
# line (TestRedisPrefixes); each owner deletes its keys when done (docs/spec.md, "Tests and Redis").
REDIS_PREFIX_LEDGER="$ROOT/target/test-redis-prefixes.txt"

cmd_test() {
    app_env
    # Tests set their own settings per deployment (a random Redis prefix, short locks, worker off, ...)
    # in each test WAR's microprofile-config.properties. An environment variable would outrank them
    # for every class, so only the connection settings pass through.
    local var server_smoke=${TEAMDESK_SERVER_SMOKE:-1} # read before the loop below unsets it
    for var in $(compgen -e | grep '^TEAMDESK_' || true); do
        case "$var" in
            TEAMDESK_DB_URL|TEAMDESK_DB_USER|TEAMDESK_DB_PASSWORD|TEAMDESK_REDIS_URL|TEAMDESK_JWT_PRIVATE_KEY) ;;
            *) unset "$var" ;;
        esac
    done
    # The tests' database, whatever TEAMDESK_DB_URL says for the dev server.
    TEAMDESK_DB_URL="jdbc:postgresql://$DB_HOST:$DB_PORT/$TEST_DB?stringtype=unspecified"
    MP_JWT_VERIFY_PUBLICKEY_LOCATION="file:$DEV_PUBLIC_KEY"
    MP_JWT_VERIFY_ISSUER="$DEV_ISSUER"
    TEAMDESK_JWT_PRIVATE_KEY="$DEV_PRIVATE_KEY"
    export TEAMDESK_DB_URL MP_JWT_VERIFY_PUBLICKEY_LOCATION MP_JWT_VERIFY_ISSUER TEAMDESK_JWT_PRIVATE_KEY
    parse_db_url "$TEAMDESK_DB_URL"
    step "Checking that this machine's hostname resolves (the integration tests start Payara Micro)"
    check_hostname
    # Only the integration tests (ConsoleIT) drive the browser: a run that skips them does not install it.
    if runs_its "$@"; then ensure_tools browser; else ensure_tools; info "no integration tests in this run: the browser is not needed"; fi
    ensure_services
    prepare_database "$TEST_DB" fresh
    local rc=0 smoke_ran=0 smoke_rc=0
    rm -f "$REDIS_PREFIX_LEDGER" # this run's prefixes only
    # The same WAR on the full Payara Server (issue 14 part 4; ~2 min of mostly waiting on asadmin), beside the
    # integration tests: it starts once this run's contract server answered (the WAR is built; its URL file is
    # removed here so that an earlier run's cannot start it) and is waited for after Maven (issue 51; docs/decisions.md
    # "The Payara Server smoke runs beside the integration tests"). TEAMDESK_SERVER_SMOKE=0 skips it.
    rm -f "$SMOKE_BESIDE_URL_FILE" "$SMOKE_BESIDE_STARTED" "$SMOKE_BESIDE_OUT"
    if [ "$server_smoke" != 0 ] && runs_its "$@"; then
        step "The Payara Server distribution for the smoke"
        "$ROOT/scripts/server-smoke.sh" --fetch || return 1
        smoke_beside &
        SMOKE_BESIDE_PID=$!
        # Interrupted (Ctrl-C: a background job ignores SIGINT) or failed: the smoke stops too, domain and all.
        trap '[ -z "$SMOKE_BESIDE_PID" ] || kill "$SMOKE_BESIDE_PID" 2>/dev/null || true' EXIT
    fi
    step "mvn -B verify $*"
    info "TEAMDESK_DB_URL=$TEAMDESK_DB_URL  TEAMDESK_REDIS_URL=$TEAMDESK_REDIS_URL"
    info "MP_JWT_VERIFY_PUBLICKEY_LOCATION=$MP_JWT_VERIFY_PUBLICKEY_LOCATION  TEAMDESK_JWT_PRIVATE_KEY=$TEAMDESK_JWT_PRIVATE_KEY"
    mvn -B verify "$@" </dev/null || rc=$?
    local keys_left=0
    check_redis_keys "$rc" || keys_left=1
    [ "$keys_left" = 0 ] || [ "$rc" -ne 0 ] || rc=1
    if [ -n "$SMOKE_BESIDE_PID" ] && [ ! -f "$SMOKE_BESIDE_STARTED" ]; then
        kill "$SMOKE_BESIDE_PID" 2>/dev/null || true # still waiting for a contract server (none in this run): as before
        wait "$SMOKE_BESIDE_PID" 2>/dev/null || true
        SMOKE_BESIDE_PID=''
    fi
    if [ -n "$SMOKE_BESIDE_PID" ] && [ "$rc" -ne 0 ]; then
        local smoke_end="had ended"
        ! kill "$SMOKE_BESIDE_PID" 2>/dev/null || smoke_end="was stopped" # its trap stops the domain, keeps the logs
        wait "$SMOKE_BESIDE_PID" 2>/dev/null || true
        SMOKE_BESIDE_PID=''
        warn "the Payara Server smoke beside the tests $smoke_end; the tests failed (its output: ${SMOKE_BESIDE_OUT#"$ROOT"/})"
    elif [ -n "$SMOKE_BESIDE_PID" ]; then
        smoke_ran=1
        step "Tests passed; the Payara Server smoke ran beside them (./teamdesk server-smoke; TEAMDESK_SERVER_SMOKE=0 skips it)"
        wait "$SMOKE_BESIDE_PID" || smoke_rc=$?
        SMOKE_BESIDE_PID=''
        cat "$SMOKE_BESIDE_OUT"
    elif [ "$rc" -eq 0 ] && [ "$server_smoke" != 0 ]; then
        smoke_ran=1
        step "Tests passed; now ./teamdesk server-smoke (TEAMDESK_SERVER_SMOKE=0 skips it)"
        "$ROOT/scripts/server-smoke.sh" || smoke_rc=$?
    fi
    if [ "$smoke_rc" -ne 0 ]; then
        rc=$smoke_rc
        printf '\n%sserver-smoke FAILED (exit %d).%s Logs: .run/server-smoke.server.log, .run/server-smoke.asadmin.log\n' "$RED" "$rc" "$R" >&2
    fi
    if [ "$rc" -eq 0 ]; then
        step "Tests passed"
    elif [ "$keys_left" = 1 ]; then
        printf '\n%sTests FAILED: they passed but left Redis keys behind (listed above).%s\n' "$RED" "$R" >&2
    elif [ "$smoke_ran" = 0 ]; then
        printf '\n%sTests FAILED (mvn exit %d).%s Reports: target/surefire-reports, target/failsafe-reports\n' "$RED" "$rc" "$R" >&2
    fi
    return "$rc"
}

# The smoke beside the tests (cmd_test): the contract server's URL file, written once it answered /openapi
# (scripts/contract-server.sh), starts it; the marker says it started; its output is shown after Maven.
SMOKE_BESIDE_URL_FILE="$ROOT/target/contract-server/url"
SMOKE_BESIDE_STARTED="$RUN_DIR/server-smoke.beside"
SMOKE_BESIDE_OUT="$RUN_DIR/server-smoke.out"
SMOKE_BESIDE_PID=''

smoke_beside() { # run in the background by cmd_test; killed by it if Maven ends before the URL file appears
    until [ -s "$SMOKE_BESIDE_URL_FILE" ]; do sleep 1; done
    mkdir -p "$RUN_DIR"
    : >"$SMOKE_BESIDE_STARTED"
    # Prepared by cmd_test: the WAR built by Maven (never a second build beside it: server-smoke.sh fails instead if
    # the WAR is older than the sources) and the distribution fetched and checked (not unzipped twice for a test).
    TEAMDESK_SMOKE_PREPARED=1 exec "$ROOT/scripts/server-smoke.sh" >"$SMOKE_BESIDE_OUT" 2>&1 </dev/null
}

runs_its() { # runs_its <mvn args...>: false when the arguments skip Failsafe's integration tests
    local a
    for a in "$@"; do
        case "$a" in
            -DskipITs | -DskipITs=true | -DskipTests | -DskipTests=true | -Dmaven.test.skip | -Dmaven.test.skip=true) return 1 ;;
        esac
    done
    return 0
}

# Prints "<prefix> <keys>" for each of the run's prefixes that still has keys on TEAMDESK_REDIS_URL. Only
# the ledger's prefixes count (a key <prefix>:...); keys of anything else on that Redis are not looked at.
redis_leftovers() {
    redis-cli -u "$TEAMDESK_REDIS_URL" --no-auth-warning --scan |
        awk -F: 'NR == FNR { mine[$0] = 1; next } ($1 in mine) { n[$1]++ } END { for (p in n) print p, n[p] }' \
            "$REDIS_PREFIX_LEDGER" - | sort
}

# After the tests: a passing run must leave no key under its prefixes, else it fails here with the list
# (returns 1). After a failed run leftovers are only reported: a test that crashed may leave keys.
check_redis_keys() {
    local mvn_rc=$1 left prefixes
    [ -s "$REDIS_PREFIX_LEDGER" ] || return 0
    case "$TEAMDESK_REDIS_URL" in
        redis-cluster://*) info "Redis keys left by the tests: not checked on a Redis Cluster URL"; return 0 ;;
    esac
    prefixes=$(wc -l <"$REDIS_PREFIX_LEDGER")
    step "Checking that the tests left no Redis keys under their $prefixes prefixes (target/test-redis-prefixes.txt)"
    if ! left=$(redis_leftovers); then
        printf '\n%sCould not scan Redis for the keys the tests left%s (redis-cli --scan failed).\n' "$RED" "$R" >&2
        return 1
    fi
    if [ -z "$left" ]; then
        ok "none left"
        return 0
    fi
    if [ "$mvn_rc" -ne 0 ]; then
        warn "the failed run left Redis keys under these prefixes (prefix, keys):"
        printf '%s\n' "$left" | sed 's/^/    /' >&2
        return 0
    fi
    printf '\n%sThe tests passed but left Redis keys behind%s under these of their prefixes (prefix, keys):\n' "$RED" "$R" >&2
    printf '%s\n' "$left" | sed 's/^/    /' >&2
    cat >&2 <<'EOF'
Each test must delete its keys when done (TestRedisPrefixes, docs/spec.md "Tests and Redis"). By hand:
    redis-cli -u "$TEAMDESK_REDIS_URL" --scan --pattern '<prefix>:*' | xargs -r redis-cli -u "$TEAMDESK_REDIS_URL" unlink
EOF
    return 1
}
