# shellcheck shell=bash
# PostgreSQL and Redis: started when local and not answering; the application's role and database.
# Sourced by ./teamdesk (services.sh); uses its variables (ROOT, RUN_DIR, ...) and scripts/lib/output.sh.

wait_until() { # wait_until <seconds> <command...>: true once the command succeeds
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 1
    done
}

pg_up() { pg_isready -q -h "$DB_HOST" -p "$DB_PORT"; }

ensure_postgres() {
    local pkg=postgresql-client
    step "PostgreSQL on $DB_HOST:$DB_PORT"
    if ! command -v pg_isready >/dev/null 2>&1 || ! command -v psql >/dev/null 2>&1; then
        is_local_host "$DB_HOST" && pkg=postgresql
        install_missing "PostgreSQL's client (pg_isready, psql)" "$pkg"
        if ! command -v pg_isready >/dev/null 2>&1 || ! command -v psql >/dev/null 2>&1; then
            die "pg_isready or psql is missing and could not be installed (apt-get install $pkg succeeded, but they are not on the PATH)."
        fi
    fi
    if pg_up; then
        ok "accepting connections"
        return
    fi
    is_local_host "$DB_HOST" ||
        die "PostgreSQL at $DB_HOST:$DB_PORT (TEAMDESK_DB_URL) does not answer, and it is not local, so I will not start it."
    if ! ls -d /etc/postgresql/*/main >/dev/null 2>&1; then
        install_missing "The PostgreSQL server" postgresql
        ls -d /etc/postgresql/*/main >/dev/null 2>&1 ||
            die "The PostgreSQL server is missing and could not be installed (apt-get install postgresql created no cluster under /etc/postgresql)."
        pg_up && { ok "accepting connections"; return; }
    fi
    local version conf_port start_opts=() out rc=0
    version=$(find /etc/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n 1)
    conf_port=$(pg_cluster_port "$version")
    # The cluster listens where TEAMDESK_DB_URL says: its configured port, unless that names another one (the
    # cluster's package chose a free port, a root sharing a host's network: scripts/fresh-machine.sh). Then
    # the port is given to this start only; the cluster's configuration is left as it is.
    [ "$conf_port" = "$DB_PORT" ] || start_opts=(-- -o "-p $DB_PORT")
    info "not answering: pg_ctlcluster --skip-systemctl-redirect $version main start${start_opts[*]:+ ${start_opts[*]}}"
    [ "$conf_port" = "$DB_PORT" ] ||
        info "(the cluster is configured for port $conf_port; TEAMDESK_DB_URL names $DB_PORT, so it is started on $DB_PORT)"
    out=$(as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start "${start_opts[@]}" 2>&1) || rc=$?
    if ! wait_until 30 pg_up; then
        [ -z "$out" ] || printf '%s\n' "$out" >&2
        die "PostgreSQL $version did not accept connections on $DB_HOST:$DB_PORT within 30 s (pg_ctlcluster exit $rc, output above).
       Look at /var/log/postgresql/postgresql-$version-main.log, and check that it listens on
       $DB_HOST port $DB_PORT (listen_addresses and port in /etc/postgresql/$version/main/postgresql.conf)."
    fi
    # pg_ctlcluster checks the server on the configured port, so on another one it reports a failure.
    [ "$rc" -eq 0 ] || [ "$conf_port" != "$DB_PORT" ] || warn "pg_ctlcluster exited $rc, yet PostgreSQL answers: $out"
    ok "started, accepting connections"
}

pg_cluster_port() { # pg_cluster_port <version>: the port in /etc/postgresql/<version>/main/postgresql.conf (5432 if unset)
    local port
    port=$(sed -n 's/^[[:space:]]*port[[:space:]]*=[[:space:]]*\([0-9][0-9]*\).*/\1/p' \
        "/etc/postgresql/$1/main/postgresql.conf" 2>/dev/null | tail -n 1)
    echo "${port:-5432}"
}

redis_up() { [ "$(redis-cli -u "$TEAMDESK_REDIS_URL" ping 2>/dev/null)" = PONG ]; }

ensure_redis() {
    local pkg=redis-tools
    step "Redis on $REDIS_HOST:$REDIS_PORT"
    if ! command -v redis-cli >/dev/null 2>&1; then
        is_local_host "$REDIS_HOST" && pkg=redis-server
        install_missing "redis-cli" "$pkg"
        command -v redis-cli >/dev/null 2>&1 ||
            die "redis-cli is missing and could not be installed (apt-get install $pkg succeeded, but it is not on the PATH)."
    fi
    if redis_up; then
        ok "PONG"
        return
    fi
    is_local_host "$REDIS_HOST" ||
        die "Redis at $REDIS_HOST:$REDIS_PORT (TEAMDESK_REDIS_URL) does not answer, and it is not local, so I will not start it."
    if ! command -v redis-server >/dev/null 2>&1; then
        install_missing "redis-server" redis-server
        command -v redis-server >/dev/null 2>&1 ||
            die "redis-server is missing and could not be installed (apt-get install redis-server succeeded, but it is not on the PATH)."
    fi
    redis_up && { ok "PONG"; return; }
    mkdir -p "$RUN_DIR"
    info "not answering: redis-server --daemonize yes --port $REDIS_PORT (log: .run/redis.log)"
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" --appendonly no \
        --dir "$RUN_DIR" --logfile "$RUN_DIR/redis.log" ||
        warn "redis-server returned an error; waiting for it anyway"
    wait_until 15 redis_up ||
        die "Redis did not answer PING on $REDIS_HOST:$REDIS_PORT within 15 s. Look at .run/redis.log."
    ok "started, PONG"
}

ensure_services() {
    ensure_postgres
    ensure_redis
}

# psql as a PostgreSQL superuser. Where the current OS user maps to a superuser role over
# the local socket (trust or peer, as on a CI machine with a root role), use that; on a
# fresh Debian install only the postgres OS user can connect (peer auth): use runuser/sudo.
# The local socket is the one of DB_PORT (its file name carries the port; Debian's psql would otherwise pick
# the default cluster's port from its configuration).
PG_ADMIN=''
pg_socket_opts() { # PG_SOCKET_OPTS: -p DB_PORT when the database is local (the socket of that port), else none
    PG_SOCKET_OPTS=()
    if is_local_host "$DB_HOST"; then PG_SOCKET_OPTS=(-p "$DB_PORT"); fi
}
pg_admin_detect() {
    [ -z "$PG_ADMIN" ] || return 0
    pg_socket_opts
    if [ "$(psql "${PG_SOCKET_OPTS[@]}" -X -tA -d postgres -c 'SELECT rolsuper FROM pg_roles WHERE rolname = current_user' 2>/dev/null)" = t ]; then
        PG_ADMIN=self
        ok "PostgreSQL superuser: role $(id -un) over the local socket"
    elif [ "$(id -u)" -eq 0 ] && id postgres >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1; then
        PG_ADMIN=runuser
        ok "PostgreSQL superuser: OS user postgres (runuser -u postgres -- psql)"
    elif command -v sudo >/dev/null 2>&1 && id postgres >/dev/null 2>&1; then
        PG_ADMIN=sudo
        ok "PostgreSQL superuser: OS user postgres (sudo -u postgres psql)"
    else
        die "Cannot reach PostgreSQL as a superuser (neither as $(id -un) over the socket nor as the postgres OS user).
       Create them by hand:  CREATE ROLE $TEAMDESK_DB_USER LOGIN PASSWORD '...';  CREATE DATABASE $DB_NAME OWNER $TEAMDESK_DB_USER;"
    fi
}

pg_admin() { # psql as a superuser on database postgres; pg_admin_detect must have run
    case "$PG_ADMIN" in
        self) psql "${PG_SOCKET_OPTS[@]}" -X -q -v ON_ERROR_STOP=1 -d postgres "$@" ;;
        runuser) (cd / && runuser -u postgres -- psql "${PG_SOCKET_OPTS[@]}" -X -q -v ON_ERROR_STOP=1 -d postgres "$@") ;;
        sudo) (cd / && sudo -u postgres psql "${PG_SOCKET_OPTS[@]}" -X -q -v ON_ERROR_STOP=1 -d postgres "$@") ;;
        *) die "internal: pg_admin before pg_admin_detect" ;;
    esac
}

sql_ident() { # a plain lower-case identifier, or die
    [[ "$1" =~ ^[a-z_][a-z0-9_]*$ ]] || die "'$1' is not a plain lower-case PostgreSQL name; create role/database yourself."
    printf '%s' "$1"
}
sql_literal() { printf "'%s'" "${1//\'/\'\'}"; }

ensure_role() {
    local role
    role=$(sql_ident "$TEAMDESK_DB_USER")
    if [ "$(pg_admin -tA -c "SELECT 1 FROM pg_roles WHERE rolname = '$role'")" = 1 ]; then
        ok "role $role exists"
    else
        info "creating role $role (LOGIN, password from TEAMDESK_DB_PASSWORD)"
        pg_admin -c "CREATE ROLE $role LOGIN PASSWORD $(sql_literal "$TEAMDESK_DB_PASSWORD")"
        ok "role $role created"
    fi
}

ensure_database() { # ensure_database <name> [fresh]: create, owned by the app role; fresh = drop first
    local db role
    db=$(sql_ident "$1")
    role=$(sql_ident "$TEAMDESK_DB_USER")
    if [ "${2:-}" = fresh ]; then
        info "dropping database $db (a clean start for this run)"
        pg_admin -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
    fi
    if [ "$(pg_admin -tA -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" = 1 ]; then
        ok "database $db exists"
    else
        pg_admin -c "CREATE DATABASE $db OWNER $role"
        ok "database $db created, owned by $role"
    fi
}

app_psql() { # psql as the application's role over TCP, exactly as the server connects
    PGPASSWORD="$TEAMDESK_DB_PASSWORD" psql -X -q -v ON_ERROR_STOP=1 -h "$DB_HOST" -p "$DB_PORT" \
        -U "$TEAMDESK_DB_USER" "$@"
}

check_app_login() { # check_app_login <db>
    app_psql -d "$1" -tA -c 'SELECT 1' >/dev/null 2>&1 ||
        die "Role $TEAMDESK_DB_USER cannot log in to database $1 on $DB_HOST:$DB_PORT with its password.
       Check pg_hba.conf allows 'host $1 $TEAMDESK_DB_USER 127.0.0.1/32 scram-sha-256' (or md5/trust),
       and that the password matches TEAMDESK_DB_PASSWORD."
    ok "$TEAMDESK_DB_USER logs in to $1 over TCP"
}

prepare_database() { # prepare_database <db> [fresh]
    step "Database $1 for role $TEAMDESK_DB_USER"
    pg_admin_detect
    ensure_role
    ensure_database "$@"
    check_app_login "$1"
}
