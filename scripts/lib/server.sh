# shellcheck shell=bash
# Build and the Payara Micro process(es).
# Sourced by ./teamdesk (server.sh); uses its variables (ROOT, RUN_DIR, ...) and scripts/lib/output.sh.

needs_build() {
    [ -f "$WAR" ] && [ -f "$MICRO_JAR" ] || return 0
    [ -n "$(find "$ROOT/pom.xml" "$ROOT/src/main" -newer "$WAR" -print -quit)" ]
}

build() {
    step "Building: mvn -B package -DskipTests"
    mkdir -p "$RUN_DIR"
    if [ "${TEAMDESK_VERBOSE:-0}" = 1 ]; then
        mvn -B package -DskipTests || die "Build failed (output above)."
    else
        info "log: .run/build.log (the first build downloads ~500 artifacts; TEAMDESK_VERBOSE=1 streams it)"
        if ! mvn -B package -DskipTests >"$BUILD_LOG" 2>&1; then
            tail -n 60 "$BUILD_LOG" >&2
            die "Build failed: the last lines of .run/build.log are above."
        fi
    fi
    if [ ! -f "$WAR" ] || [ ! -f "$MICRO_JAR" ]; then die "The build did not produce $WAR and $MICRO_JAR."; fi
    ok "target/teamdesk-tasks.war, target/payara-micro.jar"
}

server_pid() { # prints the pid of our running Payara Micro, or fails
    local pid
    [ -f "$PID_FILE" ] || return 1
    pid=$(cat "$PID_FILE" 2>/dev/null) || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'payara-micro' || return 1
    echo "$pid"
}

health_ok() { curl -fs -o /dev/null --max-time 5 "$BASE_URL/health"; }

# port_taken <port>: something accepts TCP connections on 127.0.0.1:<port>. Bash's own /dev/tcp and
# coreutils' timeout only: this runs before ensure_tools, on machines without curl (issue 27). A refused
# connection means free; an accepted one, or no answer within 3 s, means taken; anything else stops here
# rather than being read as either.
port_taken() {
    local rc=0
    command -v timeout >/dev/null 2>&1 || die "timeout (coreutils) is missing: cannot check whether port $1 is free."
    # shellcheck disable=SC2016 # $1 belongs to the inner shell
    timeout 3 "$BASH" -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' port-probe "$1" 2>/dev/null || rc=$?
    case "$rc" in
        0 | 124) return 0 ;;
        1) return 1 ;;
        *) die "Could not check whether port $1 is free (the /dev/tcp probe exited $rc)." ;;
    esac
}

show_log_tail() {
    printf '\n%s--- last 40 lines of %s ---%s\n' "$DIM" "${LOG_FILE#"$ROOT"/}" "$R" >&2
    tail -n 40 "$LOG_FILE" >&2 || true
    printf '%s--- end of log ---%s\n' "$DIM" "$R" >&2
}

start_server() {
    local pid java_opts
    step "Starting Payara Micro${INSTANCE:+ instance $INSTANCE} on port $PORT"
    if pid=$(server_pid); then
        die "TeamDesk is already running (pid $pid, log ${LOG_FILE#"$ROOT"/}). Run './teamdesk demo' to repeat the demo, or './teamdesk down' first."
    fi
    rm -f "$PID_FILE"
    ! port_taken "$PORT" || die "Something already answers on port $PORT. Stop it or choose another port: TEAMDESK_PORT=8081 ./teamdesk up"
    case "$MP_JWT_VERIFY_PUBLICKEY_LOCATION" in
        file:*) [ -r "${MP_JWT_VERIFY_PUBLICKEY_LOCATION#file:}" ] ||
            die "MP_JWT_VERIFY_PUBLICKEY_LOCATION points at a file that is not readable: $MP_JWT_VERIFY_PUBLICKEY_LOCATION" ;;
    esac
    [ "$MP_JWT_VERIFY_PUBLICKEY_LOCATION" != "file:$DEV_PUBLIC_KEY" ] ||
        info "JWT: trusting the DEVELOPMENT key dev/jwt/public.pem (issuer $MP_JWT_VERIFY_ISSUER)"
    read -r -a java_opts <<<"${TEAMDESK_JAVA_OPTS:--Xmx512m}"
    # Grizzly's strict header-value check answers any non-ASCII header byte with an empty 400 before
    # the application runs; off, the application refuses such headers itself as problem+json
    # (RequestFormFilter, ProblemAuthenticationMechanism). docs/decisions.md "Limits".
    java_opts+=("-Dorg.glassfish.grizzly.http.STRICT_HEADER_VALUE_VALIDATION_RFC_9110=false")
    # R46: the bodies of background executions (exports) at OS nice 19, so that requests and reminders get the
    # CPU first under load. Not root, the JVM warns that raising a priority needs permission: only lowering is used.
    java_opts+=("-XX:ThreadPriorityPolicy=1" "-XX:JavaPriority1_To_OSPriority=19")
    mkdir -p "$RUN_DIR"
    [ ! -f "$LOG_FILE" ] || mv -f "$LOG_FILE" "$LOG_FILE.prev"
    info "java ${java_opts[*]} -jar target/payara-micro.jar --deploy target/teamdesk-tasks.war --contextroot / --port $PORT --nocluster --prebootcommandfile server-config/pre-boot-commands.asadmin"
    info "log: ${LOG_FILE#"$ROOT"/}"
    # A session of its own, so Ctrl-C on this script does not reach the server; the inner
    # shell records its pid and then becomes java (exec), so the pid file names the JVM.
    # shellcheck disable=SC2016 # $$, $1 and $@ belong to the inner shell
    setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' teamdesk-server "$PID_FILE" \
        "$(java_bin)" "${java_opts[@]}" -jar "$MICRO_JAR" --deploy "$WAR" --contextroot / \
        --port "$PORT" --nocluster --prebootcommandfile "$PRE_BOOT" \
        >"$LOG_FILE" 2>&1 </dev/null &
    wait_until 10 test -s "$PID_FILE" || die "The server process did not start (no pid file)."
    echo "$PORT" >"$PORT_FILE"
    ok "pid $(cat "$PID_FILE")"
}

wait_healthy() {
    local pid deadline last=-1 body start=$SECONDS
    pid=$(cat "$PID_FILE")
    step "Waiting for $BASE_URL/health (up to $HEALTH_TIMEOUT s; ~20 s is usual)"
    deadline=$((SECONDS + HEALTH_TIMEOUT))
    until health_ok; do
        # Payara Micro can log "ready" (and run the worker) although its HTTP listener failed to start
        # (issue 10: "GrizzlyProxy is NULL", about one start in 55 with two instances starting together).
        # /health can then never answer: stop it now rather than after the whole timeout.
        # Payara Micro 6.2025.10 can also fail its own boot (an HK2 race creating HealthCheckService),
        # log "Failed to start, exiting" and then hang instead of exiting: same treatment.
        if grep -q -E 'GrizzlyProxy is NULL|java\.net\.BindException|Failed to start, exiting' "$LOG_FILE" 2>/dev/null; then
            show_log_tail
            info "stopping the server whose HTTP listener failed (pid $pid)" >&2
            stop_server >&2 || true
            die "Payara Micro failed to start (its HTTP listener on port $PORT, or its boot; see the log above); the server was stopped.
       Start it again; if the port is taken, choose another: TEAMDESK_PORT=8081 ./teamdesk up"
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            show_log_tail
            rm -f "$PID_FILE" "$PORT_FILE"
            die "The server exited during startup (see the log above and ${LOG_FILE#"$ROOT"/})."
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            body=$(curl -sS --max-time 5 "$BASE_URL/health" 2>&1 || true)
            show_log_tail
            printf '\n/health answered: %s\n' "${body:-(nothing)}" >&2
            info "stopping the unhealthy server (pid $pid)" >&2
            stop_server >&2 || true
            die "The server was not healthy within $HEALTH_TIMEOUT s (a failed deployment still logs 'ready': /health tells)."
        fi
        if [ $(((SECONDS - start) / 10)) -ne "$last" ]; then
            last=$(((SECONDS - start) / 10))
            info "... $((SECONDS - start)) s"
        fi
        sleep 1
    done
    ok "healthy after $((SECONDS - start)) s: $(curl -sS --max-time 5 "$BASE_URL/health" | head -c 300)"
}

stop_server() {
    local pid deadline
    if ! pid=$(server_pid); then
        rm -f "$PID_FILE" "$PORT_FILE"
        info "TeamDesk is not running."
        return 0
    fi
    step "Stopping TeamDesk (pid $pid, port $PORT): SIGTERM, waiting up to $STOP_TIMEOUT s for in-flight jobs to drain"
    kill -TERM "$pid"
    deadline=$((SECONDS + STOP_TIMEOUT))
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            warn "still running after $STOP_TIMEOUT s: sending SIGKILL (unfinished tasks are healed by stall recovery)"
            kill -KILL "$pid" 2>/dev/null || true
            break
        fi
        sleep 1
    done
    rm -f "$PID_FILE" "$PORT_FILE"
    ok "stopped"
}

# ----------------------------------------------------------------------------------------
# N instances (issue 17): instance 1 keeps .run/payara.{pid,log,port}; instance i >= 2 uses
# .run/payara-<i>.{pid,log,port}. Ports are consecutive from the base port (TEAMDESK_PORT, else the
# port instance 1 was started on, else 8080). All share one PostgreSQL and one Redis; each has its
# own worker id and heartbeat (the operator view lists them). docs/scaling.md.

MAX_INSTANCES=16

instance_files() { # instance_files <i>: PID_FILE, LOG_FILE and PORT_FILE of instance i
    local suffix=''
    [ "$1" -eq 1 ] || suffix="-$1"
    PID_FILE="$RUN_DIR/payara$suffix.pid"
    LOG_FILE="$RUN_DIR/payara$suffix.log"
    PORT_FILE="$RUN_DIR/payara$suffix.port"
}

select_instance() { # select_instance <i>: the files, PORT and BASE_URL of instance i
    INSTANCE=$1
    instance_files "$1"
    PORT=$((BASE_PORT + $1 - 1))
    BASE_URL="http://127.0.0.1:$PORT"
}

known_instances() { # the numbers of instances that have a pid file, ascending
    local f n
    for f in "$RUN_DIR"/payara.pid "$RUN_DIR"/payara-*.pid; do
        [ -f "$f" ] || continue
        n=${f##*/payara}
        n=${n%.pid}
        n=${n#-}
        echo "${n:-1}"
    done | sort -n
}

parse_instances() { # parse_instances <value>: a count 1..MAX_INSTANCES, or die
    # no leading zero: bash arithmetic would read 010 as octal 8 (and 08 not at all)
    [[ "$1" =~ ^[1-9][0-9]*$ ]] && [ "${#1}" -le 3 ] && [ "$1" -le "$MAX_INSTANCES" ] ||
        die "--instances takes a number from 1 to $MAX_INSTANCES, got: '$1'"
    echo "$1"
}

check_ports() { # check_ports <n>: TEAMDESK_PORT is a port number and ports BASE_PORT.. BASE_PORT+n-1 exist and are free, or die
    local n=$1 i
    [[ "$BASE_PORT" =~ ^[1-9][0-9]{0,4}$ ]] && [ "$BASE_PORT" -le 65535 ] ||
        die "TEAMDESK_PORT must be a port number (1-65535), got: '$BASE_PORT'"
    [ "$((BASE_PORT + n - 1))" -le 65535 ] || die "Ports $BASE_PORT..$((BASE_PORT + n - 1)) do not exist; choose a lower TEAMDESK_PORT."
    # a running TeamDesk is reported by start_server ("already running"), not as a taken port
    [ -z "$(known_instances)" ] || return 0
    for i in $(seq 0 $((n - 1))); do
        ! port_taken "$((BASE_PORT + i))" || die "Something already answers on port $((BASE_PORT + i)); $n instance(s) need ports $BASE_PORT..$((BASE_PORT + n - 1)) free. Stop it or choose another range: TEAMDESK_PORT=<first port> ./teamdesk up${n:+ --instances $n}"
    done
}

start_instances() { # start_instances <n>: starts instances 1..n on consecutive ports, then waits for each;
    # when one fails, the ones this call started are stopped again before it dies
    local n=$1 i
    trap 'stop_started_instances '"$n" EXIT
    [ "$n" -eq 1 ] || step "Starting $n instances on ports $BASE_PORT..$((BASE_PORT + n - 1)) (one PostgreSQL, one Redis)"
    for i in $(seq 1 "$n"); do
        select_instance "$i"
        start_server
    done
    for i in $(seq 1 "$n"); do
        select_instance "$i"
        wait_healthy
    done
    trap - EXIT
    select_instance 1
}

stop_started_instances() { # the EXIT trap of a failed start_instances <n>
    local n=$1 i
    [ "$n" -gt 1 ] || return 0
    info "stopping the instances this 'up' started" >&2
    for i in $(seq 1 "$n"); do
        instance_files "$i"
        [ -f "$PID_FILE" ] || continue
        PORT=$(cat "$PORT_FILE" 2>/dev/null || echo "?")
        stop_server >&2 || true
    done
}

stop_instances() { # stops every instance that has a pid file (instance 1 when none has)
    local i any=0
    for i in $(known_instances); do
        any=1
        instance_files "$i"
        PORT=$(cat "$PORT_FILE" 2>/dev/null || echo "?")
        stop_server
    done
    if [ "$any" = 0 ]; then
        instance_files 1
        stop_server
    fi
}
