# shellcheck shell=bash
# Configuration shared with the application: MicroProfile Config reads these variables.
# Sourced by ./teamdesk (config.sh); uses its variables (ROOT, RUN_DIR, ...) and scripts/lib/output.sh.

app_env() {
    : "${TEAMDESK_DB_URL:=jdbc:postgresql://127.0.0.1:5432/teamdesk?stringtype=unspecified}"
    : "${TEAMDESK_DB_USER:=teamdesk}"
    : "${TEAMDESK_DB_PASSWORD:=teamdesk}"
    : "${TEAMDESK_REDIS_URL:=redis://127.0.0.1:6379}"
    : "${TEAMDESK_REDIS_PREFIX:=teamdesk}"
    # Payara's MP-JWT reads a URL here; "file:" plus an absolute path works for a local file.
    : "${MP_JWT_VERIFY_PUBLICKEY_LOCATION:=file:$DEV_PUBLIC_KEY}"
    : "${MP_JWT_VERIFY_ISSUER:=$DEV_ISSUER}"
    export TEAMDESK_DB_URL TEAMDESK_DB_USER TEAMDESK_DB_PASSWORD TEAMDESK_REDIS_URL \
        TEAMDESK_REDIS_PREFIX MP_JWT_VERIFY_PUBLICKEY_LOCATION MP_JWT_VERIFY_ISSUER
    parse_db_url "$TEAMDESK_DB_URL"
    parse_redis_url "$TEAMDESK_REDIS_URL"
}

# jdbc:postgresql://host[:port]/db[?params] -> DB_HOST DB_PORT DB_NAME
parse_db_url() {
    local rest=${1#jdbc:postgresql://}
    [ "$rest" != "$1" ] || die "TEAMDESK_DB_URL must look like jdbc:postgresql://host:port/db, got: $1"
    rest=${rest%%\?*}
    DB_NAME=${rest#*/}
    local hostport=${rest%%/*}
    DB_HOST=${hostport%%:*}
    DB_PORT=5432
    [ "$hostport" = "$DB_HOST" ] || DB_PORT=${hostport##*:}
    if [ -z "$DB_NAME" ] || [ "$DB_NAME" = "$rest" ]; then die "No database name in TEAMDESK_DB_URL: $1"; fi
}

# redis://[user:password@]host[:port][/db] -> REDIS_HOST REDIS_PORT
parse_redis_url() {
    local rest=${1#redis://}
    rest=${rest#*@}
    rest=${rest%%/*}
    REDIS_HOST=${rest%%:*}
    REDIS_PORT=6379
    [ "$rest" = "$REDIS_HOST" ] || REDIS_PORT=${rest##*:}
}

is_local_host() { case "$1" in 127.0.0.1 | localhost | ::1 | '[::1]') return 0 ;; *) return 1 ;; esac; }
