#!/usr/bin/env bash
# Check src/main/resources/demo/seed.sql on a scratch database: apply the Flyway schema
# (V*.sql in order), run the seed twice, and check that the first run inserts the demo data
# and the second inserts nothing. The scratch database is dropped at the end.
#
#   scripts/check-seed.sh
#
# Needs psql as a role that may create databases: by default the current OS user over the
# local socket; set PGHOST/PGUSER/PGPASSWORD (libpq variables) to use another.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
db="teamdesk_seed_check_$$"
seed=src/main/resources/demo/seed.sql
psql_db() { psql -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $db"
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" || true' EXIT

for migration in $(find src/main/resources/db/migration -name 'V*__*.sql' | sort -V); do
    psql_db -f "$migration"
done

fail=0
check() { # check <what> <expected> <sql>
    local got
    got=$(psql_db -tA -c "$3")
    if [ "$got" = "$2" ]; then echo "ok    $1: $got"; else echo "FAIL  $1: got $got, want $2"; fail=1; fi
}

first=$(psql -X -v ON_ERROR_STOP=1 --single-transaction -d "$db" -f "$seed" | tr '\n' ' ')
second=$(psql -X -v ON_ERROR_STOP=1 --single-transaction -d "$db" -f "$seed" | tr '\n' ' ')
echo "first run:  $first"
echo "second run: $second"
# every statement of the second run wrote nothing: INSERT 0 0 and UPDATE 0 only
[ -z "$(echo "$second" | grep -oE "INSERT 0 [0-9]+|UPDATE [0-9]+" | grep -vE "^(INSERT 0 0|UPDATE 0)$")" ] || { echo "FAIL  second run wrote rows"; fail=1; }

check users 8 "SELECT count(*) FROM app_user"
check teams 2 "SELECT count(*) FROM team"
check memberships 7 "SELECT count(*) FROM membership"
check "tickets of demo" 3000 "SELECT count(*) FROM ticket WHERE team_id = '7ea40000-0000-4000-8000-000000000001'"
check "tickets of other" 6 "SELECT count(*) FROM ticket WHERE team_id = '7ea40000-0000-4000-8000-000000000002'"
check statuses "CLOSED OPEN PENDING" "SELECT string_agg(DISTINCT status, ' ' ORDER BY status) FROM ticket"
check priorities "HIGH LOW NORMAL URGENT" "SELECT string_agg(DISTINCT priority, ' ' ORDER BY priority) FROM ticket"
check "demo calendar" 1 "SELECT count(*) FROM team_calendar WHERE team_id = '7ea40000-0000-4000-8000-000000000001'"
check "demo SLA policies" 3 "SELECT count(*) FROM sla_policy WHERE team_id = '7ea40000-0000-4000-8000-000000000001'"
check "demo users' email addresses" 8 "SELECT count(*) FROM app_user WHERE email LIKE '%@demo.teamdesk.test'"
check "some unassigned" t "SELECT count(*) > 100 FROM ticket WHERE assignee_id IS NULL"
check "assignees are demo staff" t "SELECT bool_and(assignee_id IN ('05e40000-0000-4000-8000-000000000001',
    '05e40000-0000-4000-8000-000000000002', '05e40000-0000-4000-8000-000000000003'))
    FROM ticket WHERE team_id = '7ea40000-0000-4000-8000-000000000001' AND assignee_id IS NOT NULL"
check "requesters are demo members" 0 "SELECT count(*) FROM ticket k LEFT JOIN membership m
    ON m.team_id = k.team_id AND m.user_id = k.requester_id WHERE m.user_id IS NULL"
check "Chinese titles" t "SELECT count(*) > 500 FROM ticket WHERE title ~ '[一-龥]'"
check "bodies with line breaks" t "SELECT count(*) > 1000 FROM ticket WHERE body LIKE '%' || chr(10) || '%'"
check "bodies with CRLF" t "SELECT count(*) > 10 FROM ticket WHERE body LIKE '%' || chr(13) || chr(10) || '%'"
check "formula-like titles, all OPEN" "12 OPEN" "SELECT count(*) || ' ' || string_agg(DISTINCT status, ',')
    FROM ticket WHERE title ~ '^[=+@\t-]'"
check "created within 90 days" t "SELECT bool_and(created_at > now() - interval '91 days' AND created_at <= now()) FROM ticket"
check "updated_at >= created_at" t "SELECT bool_and(updated_at >= created_at) FROM ticket"
check "version 1" t "SELECT bool_and(version = 1) FROM ticket"

if [ "$fail" != 0 ]; then echo "seed check FAILED"; exit 1; fi
echo "seed OK"
