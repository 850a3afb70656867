# shellcheck shell=bash
# Demo data, development tokens and the main job (an export as ada).
# Sourced by ./teamdesk (demo.sh); uses its variables (ROOT, RUN_DIR, ...) and scripts/lib/output.sh.

seed() {
    step "Seeding demo data into $DB_NAME (idempotent: src/main/resources/demo/seed.sql)"
    [ "$(app_psql -d "$DB_NAME" -tA -c "SELECT to_regclass('public.ticket') IS NOT NULL")" = t ] ||
        die "Database $DB_NAME has no schema yet: the server creates it with Flyway at startup. Run './teamdesk up' (or start the server) first."
    app_psql -d "$DB_NAME" --single-transaction -f "$SEED_SQL" >/dev/null
    ok "$(app_psql -d "$DB_NAME" -tA -F ' ' -c "SELECT (SELECT count(*) FROM app_user) || ' users,',
        (SELECT count(*) FROM team) || ' teams,', (SELECT count(*) FROM ticket) || ' tickets'")"
}

# The seed is the one place the demo ids live: its INSERT INTO app_user and INSERT INTO team blocks hold
# rows of the form ('<uuid>', '<name>', '<display name>'). These read them from there.
seed_rows() { # seed_rows <table>: "<uuid> <name>" per row of that table's INSERT block
    sed -n "/^INSERT INTO $1 (id, /,/^ON CONFLICT/s/^ *('\([0-9a-f-]\{36\}\)', '\([a-z0-9_-]*\)',.*/\1 \2/p" "$SEED_SQL"
}

seed_users() { # the seeded usernames, space-separated, in seed order
    [ -r "$SEED_SQL" ] || return 1
    seed_rows app_user | cut -d ' ' -f 2 | tr '\n' ' ' | sed 's/ $//'
}

seed_team_id() { # seed_team_id <slug>: a seeded team's id
    local id
    id=$(seed_rows team | sed -n "s/^\([0-9a-f-]*\) $1\$/\1/p")
    [ -n "$id" ] && echo "$id"
}

user_id() { # user_id <username>: a seeded user's id, or fail
    local id
    [[ "$1" =~ ^[a-z0-9_-]+$ ]] || return 1
    id=$(seed_rows app_user | sed -n "s/^\([0-9a-f-]*\) $1\$/\1/p")
    [ -n "$id" ] && echo "$id"
}

b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }

mint_token() { # mint_token <username>: a compact RS256 JWS on stdout
    local user=$1 groups sub key iss now header payload signing_input sig
    sub=$(user_id "$user") || die "Unknown user '$user'. Seeded users: ${USERS// /, }."
    key="${TEAMDESK_JWT_PRIVATE_KEY:-$DEV_PRIVATE_KEY}"
    [ -r "$key" ] || die "Private key not readable: $key"
    iss="${MP_JWT_VERIFY_ISSUER:-$DEV_ISSUER}"
    now=$(date +%s)
    header='{"alg":"RS256","typ":"JWT","kid":"teamdesk-dev"}'
    groups='"member"'
    [ "$user" = ops ] && groups='"member","operator"' # ops: the operator API (/api/v1/admin), no team
    payload=$(printf '{"iss":"%s","sub":"%s","upn":"%s","preferred_username":"%s","groups":[%s],"iat":%d,"exp":%d,"jti":"%s"}' \
        "$iss" "$sub" "$user" "$user" "$groups" "$now" "$((now + TOKEN_TTL))" "$(openssl rand -hex 16)")
    signing_input="$(printf '%s' "$header" | b64url).$(printf '%s' "$payload" | b64url)"
    sig=$(printf '%s' "$signing_input" | openssl dgst -sha256 -sign "$key" -binary | b64url)
    [ -n "$sig" ] || die "openssl could not sign with $key"
    printf '%s.%s\n' "$signing_input" "$sig"
}

# ----------------------------------------------------------------------------------------
# The main job: export tickets to CSV as a background task

progress_bar() { # progress_bar <percent> <status>
    local width=40 filled
    filled=$(($1 * width / 100))
    printf '\r    [%s%s] %3d%%  %-9s' "$(printf '%*s' "$filled" '' | tr ' ' '#')" \
        "$(printf '%*s' "$((width - filled))" '' | tr ' ' '.')" "$1" "$2"
}

demo() {
    local tmp token code id location status progress last='' deadline csv lines task
    health_ok || die "TeamDesk does not answer on $BASE_URL/health. Start it with './teamdesk up'."
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064 # expand now: $tmp is local
    trap "rm -rf '$tmp'" EXIT

    step "Minting a development token for ada (OWNER of team demo)"
    token=$(mint_token ada)
    ok "TOKEN=\$(./teamdesk token ada)"

    step "Creating the export task: POST /api/v1/teams/$DEMO_TEAM_ID/tasks"
    local request='{"kind":"EXPORT","scope":"TEAM","filters":{"status":["OPEN","PENDING"]},"timeZone":"Asia/Shanghai"}'
    info "$request"
    code=$(curl -sS -o "$tmp/created.json" -D "$tmp/created.headers" -w '%{http_code}' -X POST \
        -H "Authorization: Bearer $token" -H 'Content-Type: application/json' --data "$request" \
        "$BASE_URL/api/v1/teams/$DEMO_TEAM_ID/tasks") || die "POST failed (curl error)"
    [ "$code" = 202 ] || die "Expected 202 Accepted, got $code: $(head -c 600 "$tmp/created.json")"
    id=$(jq -r '.id // empty' "$tmp/created.json")
    [ -n "$id" ] || die "The 202 answer has no task id: $(head -c 600 "$tmp/created.json")"
    location=$(sed -n 's/^[Ll]ocation: *//p' "$tmp/created.headers" | tr -d '\r')
    ok "202 Accepted, task $id, Location: ${location:-(none)}"

    step "Polling GET /api/v1/tasks/$id until COMPLETED or FAILED (up to $DEMO_TIMEOUT s)"
    deadline=$((SECONDS + DEMO_TIMEOUT))
    while :; do
        code=$(curl -sS -o "$tmp/task.json" -w '%{http_code}' -H "Authorization: Bearer $token" \
            "$BASE_URL/api/v1/tasks/$id") || die "GET task failed (curl error)"
        [ "$code" = 200 ] || die "GET /api/v1/tasks/$id answered $code: $(head -c 600 "$tmp/task.json")"
        status=$(jq -r '.status' "$tmp/task.json")
        progress=$(jq -r '.progress // 0' "$tmp/task.json")
        if [ -t 1 ]; then
            progress_bar "$progress" "$status"
        elif [ "$status $progress" != "$last" ]; then
            info "$status $progress%"
        fi
        last="$status $progress"
        case "$status" in COMPLETED | FAILED) break ;; esac
        if [ "$SECONDS" -ge "$deadline" ]; then
            [ ! -t 1 ] || echo
            die "The task is still $status after $DEMO_TIMEOUT s. Look at .run/payara.log."
        fi
        sleep 0.5
    done
    [ ! -t 1 ] || echo
    task=$(jq -c '{status, run, displayRun, attempts, progress, resultSummary, expiresAt, lastError}' "$tmp/task.json")
    if [ "$status" = FAILED ]; then
        die "The export FAILED: $(jq -r '.lastError // "no lastError"' "$tmp/task.json"). Task: $task"
    fi
    ok "$task"

    csv="export-$id.csv"
    step "Downloading GET /api/v1/tasks/$id/result -> ./$csv"
    code=$(curl -sS -o "$ROOT/$csv" -D "$tmp/result.headers" -w '%{http_code}' \
        -H "Authorization: Bearer $token" "$BASE_URL/api/v1/tasks/$id/result") || die "download failed (curl error)"
    [ "$code" = 200 ] || { rm -f "$ROOT/$csv"; die "GET .../result answered $code"; }
    lines=$(wc -l <"$ROOT/$csv")
    ok "$csv: $lines lines, $(wc -c <"$ROOT/$csv") bytes ($(sed -n 's/^[Cc]ontent-[Tt]ype: *//p' "$tmp/result.headers" | tr -d '\r'))"
    info "(ticket bodies contain line breaks inside quoted cells, so lines > rows; the file starts with a UTF-8 BOM for Excel)"
    printf '%s--- first lines of %s ---%s\n' "$DIM" "$csv" "$R"
    head -n 8 "$ROOT/$csv"
    printf '%s--- ---%s\n' "$DIM" "$R"

    demo_email "$token" "$tmp"

    cat <<EOF

${B}The same by hand with curl:${R}
  TOKEN=\$(./teamdesk token ada)
  curl -i -X POST $BASE_URL/api/v1/teams/$DEMO_TEAM_ID/tasks \\
       -H "Authorization: Bearer \$TOKEN" -H 'Content-Type: application/json' \\
       -d '$request'
  # 202 Accepted, Location: /api/v1/tasks/<id>; this run's id was $id
  curl -s $BASE_URL/api/v1/tasks/$id -H "Authorization: Bearer \$TOKEN"          # status, progress
  curl -OJ $BASE_URL/api/v1/tasks/$id/result -H "Authorization: Bearer \$TOKEN"  # the CSV once COMPLETED

  Other users: ${USERS// /, } (ada owns team demo, ben/chen are staff, dana/eli/fang customers,
  zed owns team other). Stop the server with ./teamdesk down.
EOF
}

# Issue 54: a reminder's email, from the reminder's transaction through the outbox and the relay to the local mail
# catcher (only when ./teamdesk up started it: a real relay's mailboxes are not ours to read).
demo_email() { # demo_email <token> <tmp dir>
    local token=$1 tmp=$2 ticket assignee marker code id status deadline file
    mailcatcher_pid >/dev/null || return 0
    ticket=$(app_psql -d "$DB_NAME" -tA -F ' ' -c "SELECT t.id, u.username FROM ticket t JOIN app_user u ON
        u.id = t.assignee_id WHERE t.team_id = '$DEMO_TEAM_ID' AND t.status = 'OPEN' AND u.email IS NOT NULL
        ORDER BY t.created_at LIMIT 1")
    [ -n "$ticket" ] || die "The demo team has no OPEN ticket assigned to someone with an email address: re-seed (./teamdesk seed)."
    assignee=${ticket#* }
    ticket=${ticket%% *}
    marker="Demo reminder $(date -u +%H:%M:%S)"
    step "A reminder by email: POST a REMINDER of ticket $ticket to its assignee, $assignee"
    code=$(curl -sS -o "$tmp/reminder.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $token" \
        -H 'Content-Type: application/json' --data "{\"kind\":\"REMINDER\",\"ticketId\":\"$ticket\",\"message\":\"$marker: please look at this ticket\",\"recipients\":\"ASSIGNEE\"}" \
        "$BASE_URL/api/v1/teams/$DEMO_TEAM_ID/tasks") || die "POST failed (curl error)"
    [ "$code" = 202 ] || die "Expected 202 Accepted, got $code: $(head -c 600 "$tmp/reminder.json")"
    id=$(jq -r '.id' "$tmp/reminder.json")
    deadline=$((SECONDS + 60))
    until status=$(curl -sS -H "Authorization: Bearer $token" "$BASE_URL/api/v1/tasks/$id" | jq -r '.status') &&
        [ "$status" = COMPLETED ] || [ "$status" = FAILED ]; do
        [ "$SECONDS" -lt "$deadline" ] || die "The reminder is still $status after 60 s. Look at .run/payara.log."
        sleep 0.5
    done
    [ "$status" = COMPLETED ] || die "The reminder FAILED: $(curl -sS -H "Authorization: Bearer $token" "$BASE_URL/api/v1/tasks/$id" | jq -r .lastError)"
    ok "task $id COMPLETED: its notification and its email's outbox row committed in the reminder's transaction"
    step "Waiting for the relay to deliver it to the mail catcher (${MAIL_DIR#"$ROOT"/}/new)"
    deadline=$((SECONDS + 30))
    until file=$(mail_file_with "$marker"); do
        [ "$SECONDS" -lt "$deadline" ] || die "No email with '$marker' arrived within 30 s: look at .run/payara.log and ${MAILCATCHER_LOG#"$ROOT"/}."
        sleep 0.5
    done
    ok "arrived: ${file#"$ROOT"/}"
    printf '%s--- its headers ---%s\n' "$DIM" "$R"
    sed -n '1,/^\r\{0,1\}$/p' "$file" | grep -iE '^(From|To|Subject|Message-ID|Date|Auto-Submitted):' | tr -d '\r'
    printf '%s--- ---%s\n' "$DIM" "$R"
    info "$assignee sees where it went: GET /api/v1/me/notifications (deliveries), as TOKEN=\$(./teamdesk token $assignee)"
}
