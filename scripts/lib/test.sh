# shellcheck shell=bash
# ./teamdesk test: a fresh test database, then mvn -B verify and the Payara Server smoke.
# Sourced by ./teamdesk (test.sh); uses its variables (ROOT, RUN_DIR, ...) and scripts/lib/output.sh.

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
    ensure_tools browser
    ensure_services
    prepare_database "$TEST_DB" fresh
    step "mvn -B verify $*"
    info "TEAMDESK_DB_URL=$TEAMDESK_DB_URL  TEAMDESK_REDIS_URL=$TEAMDESK_REDIS_URL"
    info "MP_JWT_VERIFY_PUBLICKEY_LOCATION=$MP_JWT_VERIFY_PUBLICKEY_LOCATION  TEAMDESK_JWT_PRIVATE_KEY=$TEAMDESK_JWT_PRIVATE_KEY"
    local rc=0 smoke_ran=0
    mvn -B verify "$@" </dev/null || rc=$?
    if [ "$rc" -eq 0 ] && [ "$server_smoke" != 0 ]; then
        smoke_ran=1
        # The same WAR on the full Payara Server (issue 14 part 4; ~2 min). TEAMDESK_SERVER_SMOKE=0 skips it.
        step "Tests passed; now ./teamdesk server-smoke (TEAMDESK_SERVER_SMOKE=0 skips it)"
        "$ROOT/scripts/server-smoke.sh" || rc=$?
        [ "$rc" -eq 0 ] || printf '\n%sserver-smoke FAILED (exit %d).%s Logs: .run/server-smoke.server.log, .run/server-smoke.asadmin.log\n' "$RED" "$rc" "$R" >&2
    fi
    if [ "$rc" -eq 0 ]; then
        step "Tests passed"
    elif [ "$smoke_ran" = 0 ]; then
        printf '\n%sTests FAILED (mvn exit %d).%s Reports: target/surefire-reports, target/failsafe-reports\n' "$RED" "$rc" "$R" >&2
    fi
    return "$rc"
}
