# shellcheck shell=bash
# Issue 54: where './teamdesk up' sends email. Unless TEAMDESK_MAIL_HOST names a real relay, a local mail catcher:
# Debian's python3-aiosmtpd (a real SMTP server) that keeps every message it takes as a file of a Maildir under
# .run/mail/new, so the demo can show a reminder's email arriving. Sourced by ./teamdesk (mail.sh); uses its variables
# (ROOT, RUN_DIR, ...) and scripts/lib/output.sh.

MAILCATCHER_PORT="${TEAMDESK_MAILCATCHER_PORT:-2525}"
MAIL_DIR="$RUN_DIR/mail"
MAILCATCHER_PID_FILE="$RUN_DIR/mailcatcher.pid"
MAILCATCHER_LOG="$RUN_DIR/mailcatcher.log"
# Debian's Python (the package's modules live there), not whichever python3 comes first on the PATH
MAIL_PYTHON="${TEAMDESK_MAIL_PYTHON:-/usr/bin/python3}"

mailcatcher_pid() { # the running catcher's pid, or fail
    local pid
    pid=$(cat "$MAILCATCHER_PID_FILE" 2>/dev/null) || return 1
    kill -0 "$pid" 2>/dev/null && echo "$pid"
}

mailcatcher_usable() { "$MAIL_PYTHON" -c 'import aiosmtpd' >/dev/null 2>&1; }

# The server's mail settings: the operator's relay when TEAMDESK_MAIL_HOST is set, else the local catcher (started).
ensure_mail() {
    if [ -n "${TEAMDESK_MAIL_HOST:-}" ]; then
        step "Email through $TEAMDESK_MAIL_HOST:${TEAMDESK_MAIL_PORT:-25} (TEAMDESK_MAIL_HOST; no local mail catcher)"
        ok "members' notifications are emailed there (docs/operations.md)"
        MAILCATCHER_ON=false
        return
    fi
    step "A local mail catcher on 127.0.0.1:$MAILCATCHER_PORT: the demo's emails land in ${MAIL_DIR#"$ROOT"/}/new"
    mailcatcher_usable || install_missing "The local mail catcher (Python's aiosmtpd)" python3-aiosmtpd
    mailcatcher_usable ||
        die "The local mail catcher cannot run: $MAIL_PYTHON has no aiosmtpd module (apt-get install python3-aiosmtpd), or set TEAMDESK_MAIL_HOST to a real relay."
    if ! mailcatcher_pid >/dev/null; then
        ! port_taken "$MAILCATCHER_PORT" ||
            die "Something already answers on port $MAILCATCHER_PORT: stop it or choose another one: TEAMDESK_MAILCATCHER_PORT=2526 ./teamdesk up"
        mkdir -p "$MAIL_DIR/tmp" "$MAIL_DIR/new" "$MAIL_DIR/cur" # a Maildir (aiosmtpd creates one only where nothing is)
        # shellcheck disable=SC2016 # $$, $1 and $@ belong to the inner shell
        setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' teamdesk-mail "$MAILCATCHER_PID_FILE" \
            "$MAIL_PYTHON" -m aiosmtpd -n -l "127.0.0.1:$MAILCATCHER_PORT" -c aiosmtpd.handlers.Mailbox "$MAIL_DIR" \
            >"$MAILCATCHER_LOG" 2>&1 </dev/null &
        wait_until 10 port_taken "$MAILCATCHER_PORT" ||
            die "The local mail catcher did not start: ${MAILCATCHER_LOG#"$ROOT"/} says: $(tail -n 3 "$MAILCATCHER_LOG" 2>/dev/null)"
    fi
    TEAMDESK_MAIL_HOST=127.0.0.1
    TEAMDESK_MAIL_PORT=$MAILCATCHER_PORT
    : "${TEAMDESK_MAIL_FROM:=TeamDesk demo <desk@demo.teamdesk.test>}"
    export TEAMDESK_MAIL_HOST TEAMDESK_MAIL_PORT TEAMDESK_MAIL_FROM
    MAILCATCHER_ON=true
    ok "pid $(mailcatcher_pid) (python3-aiosmtpd; log ${MAILCATCHER_LOG#"$ROOT"/})"
}

stop_mailcatcher() {
    local pid
    pid=$(mailcatcher_pid) || { rm -f "$MAILCATCHER_PID_FILE"; return 0; }
    step "Stopping the local mail catcher (pid $pid)"
    kill "$pid" 2>/dev/null || true
    wait_until 10 sh -c "! kill -0 $pid" || kill -9 "$pid" 2>/dev/null || true
    rm -f "$MAILCATCHER_PID_FILE"
    ok "stopped (its mail stays in ${MAIL_DIR#"$ROOT"/})"
}

mail_file_with() { # mail_file_with <text>: the newest caught message that contains <text>, or fail
    local f
    f=$(grep -lF -- "$1" "$MAIL_DIR"/new/* 2>/dev/null | xargs -r ls -t 2>/dev/null | head -n 1)
    [ -n "$f" ] && echo "$f"
}
