#!/usr/bin/env bash
# The fresh-machine check (issue 27): does `./teamdesk up` bring a minimal Debian, with nothing installed, to the
# running demo with no manual step? For each release asked for, this script
#   1. builds a minimal Debian root with debootstrap --variant=minbase (Debian's own packages, from the mirror this
#      host's apt is configured with): what the debian:12 / debian:13 container images are, no curl, no JDK;
#   2. makes it look like a container: /proc, /sys, /dev, /dev/pts and its own /dev/shm mounted, the host's
#      /etc/resolv.conf, /etc/hosts (the machine's hostname must resolve) and local CA certificates
#      (/usr/local/share/ca-certificates, for a network that inspects TLS) copied in, and the standard Debian
#      chroot guard /usr/sbin/policy-rc.d (exit 101), as container images have it, so that the postinst scripts
#      of postgresql and redis-server do not start services on their default ports, which are the host's;
#   3. clones this repository's committed HEAD into it (a clean clone; minbase has no git, so git runs here);
#   4. runs, inside the root, as root: `./teamdesk up` (the main job shown, the demo CSV downloaded, the console's
#      URL printed), scripts/test-launcher.sh, `./teamdesk down`, and the unit-test part of `./teamdesk test`
#      (`-DskipITs`, no server smoke);
#   5. cleans up: stops every process whose root is this root (Payara Micro, PostgreSQL, Redis, ...), unmounts,
#      and removes the root unless --keep.
# The root shares the host's network, so everything inside listens on ports of the launcher's own settings that
# nothing on the host uses (checked free first): TEAMDESK_PORT, the port of TEAMDESK_DB_URL (the root's
# PostgreSQL is started there), of TEAMDESK_REDIS_URL, and the tests' two local Redis Clusters.
#
# Usage: scripts/fresh-machine.sh [12|13|all] [--keep] [--up-only]      (default: all; needs root)
#   --keep      leave the root (stopped, unmounted) for a look: /var/tmp/teamdesk-fresh-<codename>
#   --up-only   up, the launcher's checks and down only (no unit tests); what .ci/run runs
# Settings: FRESH_ROOT_BASE (/var/tmp), FRESH_MIRROR (else from /etc/apt/sources.list.d/*.sources or
# /etc/apt/sources.list), FRESH_APP_PORT (18480), FRESH_DB_PORT (15532), FRESH_REDIS_PORT (16479),
# FRESH_CLUSTER_PORT (17301: 17301-17306), FRESH_FAILOVER_PORT (17311: 17311-17316), FRESH_HEALTH_TIMEOUT (420 s,
# the launcher's TEAMDESK_HEALTH_TIMEOUT inside).
# Logs of each step: .run/fresh-machine/<codename>/. Takes 10-25 min per release (apt and ~520 Maven artifacts).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT_BASE=${FRESH_ROOT_BASE:-/var/tmp}
APP_PORT=${FRESH_APP_PORT:-18480}
DB_PORT=${FRESH_DB_PORT:-15532}
REDIS_PORT=${FRESH_REDIS_PORT:-16479}
CLUSTER_PORT=${FRESH_CLUSTER_PORT:-17301}
FAILOVER_PORT=${FRESH_FAILOVER_PORT:-17311}
# TEAMDESK_HEALTH_TIMEOUT inside: Payara Micro took 121-162 s to become healthy in a root while other builds kept
# this 2-core machine busy (~20 s alone); past the launcher's 180 s a busy machine would read as a broken launcher.
HEALTH_TIMEOUT=${FRESH_HEALTH_TIMEOUT:-420}
MARKER=.teamdesk-fresh-root # in every root this script builds; it removes no directory without it
UP_TIMEOUT=2700             # s for `./teamdesk up` (apt, the first Maven build, the demo)
TEST_TIMEOUT=3600           # s for the unit tests

if [ -t 1 ]; then B=$'\e[1m' RED=$'\e[31m' GRN=$'\e[32m' R=$'\e[0m'; else B='' RED='' GRN='' R=''; fi
step() { printf '%s==>%s %s%s%s\n' "$GRN" "$R" "$B" "$*" "$R"; }
info() { printf '    %s\n' "$*"; }
die() { printf '\n%sfresh-machine: %s%s\n' "$RED" "$*" "$R" >&2; exit 1; }

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

RELEASES=() KEEP=0 UP_ONLY=0
for arg in "$@"; do
    case "$arg" in
        12 | bookworm) RELEASES+=(bookworm) ;;
        13 | trixie) RELEASES+=(trixie) ;;
        all) RELEASES+=(bookworm trixie) ;;
        --keep) KEEP=1 ;;
        --up-only) UP_ONLY=1 ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $arg" ;;
    esac
done
[ "${#RELEASES[@]}" -gt 0 ] || RELEASES=(bookworm trixie)

release_number() { case "$1" in bookworm) echo 12 ;; trixie) echo 13 ;; esac; }

# ----------------------------------------------------------------------------------------
# The host: root, debootstrap, the mirror, free ports

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mount)."
mkdir -p "$ROOT_BASE"
ROOT_BASE=$(cd "$ROOT_BASE" && pwd -P) # /proc/<pid>/root names the real path

ensure_debootstrap() {
    if ! command -v debootstrap >/dev/null 2>&1; then
        step "Installing debootstrap on this host (apt-get)"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; } </dev/null ||
            die "debootstrap is missing and could not be installed (apt-get install debootstrap failed)."
    fi
    [ -r /usr/share/keyrings/debian-archive-keyring.gpg ] ||
        die "/usr/share/keyrings/debian-archive-keyring.gpg is missing: apt-get install debian-archive-keyring."
}

# The first Debian archive (not -security) this host's apt uses: deb822 *.sources first, then sources.list.
host_mirror() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        awk 'BEGIN { RS = ""; FS = "\n" }
            { uri = ""; suites = ""; types = ""; on = 1
              for (i = 1; i <= NF; i++) {
                  if ($i ~ /^URIs:/) { v = $i; sub(/^URIs:[ \t]*/, "", v); split(v, a, /[ \t]+/); uri = a[1] }
                  else if ($i ~ /^Suites:/) { suites = $i }
                  else if ($i ~ /^Types:/) { types = $i }
                  else if ($i ~ /^Enabled:[ \t]*[Nn][Oo]/) { on = 0 }
              }
              if (on && uri != "" && types ~ /[: \t]deb([ \t]|$)/ && suites !~ /-security/) print uri }' "$f"
    done
    if [ -r /etc/apt/sources.list ]; then
        sed -n -E 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]]+([^[:space:]]+).*/\2 \3/p' \
            /etc/apt/sources.list | awk '$2 !~ /-security/ { print $1 }'
    fi
}

port_taken() { # something accepts connections on 127.0.0.1:<port> (as the launcher checks)
    local rc=0
    # shellcheck disable=SC2016 # $1 belongs to the inner shell
    timeout 3 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' port-probe "$1" 2>/dev/null || rc=$?
    [ "$rc" -ne 1 ]
}

fresh_ports() { # every port the root's services take: app, PostgreSQL, Redis, and both clusters with their buses
    echo "$APP_PORT" "$DB_PORT" "$REDIS_PORT"
    # Redis Cluster nodes also listen on their port + 10000 (the cluster bus).
    seq "$CLUSTER_PORT" $((CLUSTER_PORT + 5)); seq $((CLUSTER_PORT + 10000)) $((CLUSTER_PORT + 10005))
    seq "$FAILOVER_PORT" $((FAILOVER_PORT + 5)); seq $((FAILOVER_PORT + 10000)) $((FAILOVER_PORT + 10005))
}

ports_taken() { # the ones of fresh_ports that something on this host answers on
    local p
    for p in $(fresh_ports); do ! port_taken "$p" || echo "$p"; done
}

choose_ports() { # the defaults, else the whole set shifted by 20 at a time (up to 10 times); FRESH_*_PORT are kept as given
    local taken shift
    taken=$(ports_taken)
    [ -n "$taken" ] || return 0
    if [ -z "${FRESH_APP_PORT:-}${FRESH_DB_PORT:-}${FRESH_REDIS_PORT:-}${FRESH_CLUSTER_PORT:-}${FRESH_FAILOVER_PORT:-}" ]; then
        for shift in 1 2 3 4 5 6 7 8 9 10; do
            APP_PORT=$((18480 + 20 * shift)) DB_PORT=$((15532 + 20 * shift)) REDIS_PORT=$((16479 + 20 * shift))
            CLUSTER_PORT=$((17301 + 20 * shift)) FAILOVER_PORT=$((17311 + 20 * shift))
            if [ -z "$(ports_taken)" ]; then
                info "ports in use on this host: $(echo "$taken" | tr '\n' ' ')- the root's ports are shifted by $((20 * shift))"
                return 0
            fi
        done
    fi
    die "ports in use on this host: $(echo "$taken" | tr '\n' ' '). The root shares the host's network: choose others with
       FRESH_APP_PORT, FRESH_DB_PORT, FRESH_REDIS_PORT, FRESH_CLUSTER_PORT, FRESH_FAILOVER_PORT."
}

# ----------------------------------------------------------------------------------------
# One root: build, mount, clean up

CURRENT_ROOT=''

root_pids() { # the processes whose root directory is <root>
    local p
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"
    done
    return 0
}

root_mounts() { # the mount points under <root>, deepest first
    awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r
}

cleanup_root() { # cleanup_root <root> <keep>: stop its processes, unmount, remove unless kept
    local root=$1 keep=$2 pids m
    [ -n "$root" ] && [ -d "$root" ] || return 0
    pids=$(root_pids "$root")
    if [ -n "$pids" ]; then
        info "stopping the root's processes: $(echo "$pids" | tr '\n' ' ')"
        # shellcheck disable=SC2086 # one pid a word
        kill -TERM $pids 2>/dev/null || true
        for _ in $(seq 1 30); do
            [ -n "$(root_pids "$root")" ] || break
            sleep 1
        done
        pids=$(root_pids "$root")
        # shellcheck disable=SC2086
        [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
        sleep 1
    fi
    for m in $(root_mounts "$root"); do
        umount "$m" 2>/dev/null || umount -l "$m" || true
    done
    if [ -n "$(root_mounts "$root")" ]; then
        printf '%sfresh-machine: still mounted under %s (not removed):%s\n%s\n' "$RED" "$root" "$R" "$(root_mounts "$root")" >&2
        return 1
    fi
    if [ "$keep" = 1 ]; then
        info "kept: $root (stopped and unmounted; chroot $root bash to look)"
    elif [ -f "$root/$MARKER" ]; then
        rm -rf --one-file-system "$root"
        info "removed $root"
    fi
}

# shellcheck disable=SC2317 # the EXIT trap
on_exit() {
    local rc=$?
    if [ -n "$CURRENT_ROOT" ]; then
        step "Cleaning up $CURRENT_ROOT"
        cleanup_root "$CURRENT_ROOT" "$KEEP" || rc=1
    fi
    exit "$rc"
}
trap on_exit EXIT
trap 'printf "\ninterrupted\n" >&2; exit 130' INT TERM

build_root() { # build_root <codename> <root> <log dir>
    local codename=$1 root=$2 logs=$3
    if [ -e "$root" ]; then
        [ -f "$root/$MARKER" ] || die "$root exists and is not a root of this script (no $MARKER): remove it yourself."
        step "Removing the previous root $root"
        cleanup_root "$root" 0 || die "could not clean up the previous $root"
    fi
    step "debootstrap --variant=minbase $codename $root (mirror from this host's apt configuration)"
    mkdir -p "$root"
    touch "$root/$MARKER"
    local t=$SECONDS
    if ! debootstrap --variant=minbase "$codename" "$root" "$MIRROR" >"$logs/debootstrap.log" 2>&1; then
        tail -n 20 "$logs/debootstrap.log" >&2
        die "debootstrap $codename failed (log above; if the Release file's key is unknown, a newer debian-archive-keyring is needed)."
    fi
    touch "$root/$MARKER" # debootstrap keeps it, but be sure
    info "$(du -sh "$root" | cut -f 1), $(chroot "$root" dpkg-query -f '.' -W | wc -c) packages, in $(elapsed "$t"); curl: $(chroot "$root" sh -c 'command -v curl || echo none'), java: $(chroot "$root" sh -c 'command -v java || echo none')"

    # The standard chroot guard (container images have it): invoke-rc.d starts no service, so the postinst of
    # postgresql and redis-server cannot start them on 5432/6379, the host's ports.
    printf '#!/bin/sh\n# fresh-machine.sh: no service starts from a package script in this root\nexit 101\n' \
        >"$root/usr/sbin/policy-rc.d"
    chmod 755 "$root/usr/sbin/policy-rc.d"
    # What a container gets from its runtime: name resolution, and its own hostname resolving.
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    cp /etc/hosts "$root/etc/hosts"
    # This host's own CA certificates (a network that inspects TLS needs them to reach Maven Central): in place
    # before the launcher installs ca-certificates, whose update-ca-certificates (and ca-certificates-java, for
    # the JDK) then take them in, as on the host. Certificates only; no key, no environment variable.
    if [ -n "$(find /usr/local/share/ca-certificates -name '*.crt' 2>/dev/null | head -n 1)" ]; then
        mkdir -p "$root/usr/local/share/ca-certificates"
        cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
        info "copied this host's CA certificates (/usr/local/share/ca-certificates) for the root's trust stores"
    fi
    mount -t proc proc "$root/proc" || die "mount proc failed"
    mount -t sysfs sysfs "$root/sys" || die "mount sysfs failed"
    mount --bind /dev "$root/dev" || die "mount --bind /dev failed"
    mount --bind /dev/pts "$root/dev/pts" || die "mount --bind /dev/pts failed"
    mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm" || die "mount tmpfs on /dev/shm failed" # its own, not the host's
    if ! chroot "$root" getent hosts "$(hostname)" >/dev/null 2>&1; then
        printf '127.0.1.1 %s\n' "$(hostname)" >>"$root/etc/hosts"
        info "added '127.0.1.1 $(hostname)' to the root's /etc/hosts (as a container runtime does)"
    fi
}

clone_into() { # clone_into <root>: a clean clone of this repository's committed HEAD at /root/teamdesk
    local root=$1 head branch
    head=$(git -C "$REPO" rev-parse HEAD)
    branch=$(git -C "$REPO" symbolic-ref -q --short HEAD || echo fresh-machine)
    step "git clone $REPO -> $root/root/teamdesk ($branch at ${head:0:12})"
    [ -z "$(git -C "$REPO" status --porcelain --untracked-files=no)" ] ||
        info "note: uncommitted changes here are not in the clone (it is the committed HEAD)"
    git clone -q --no-checkout "$REPO" "$root/root/teamdesk" || die "git clone failed"
    git -C "$root/root/teamdesk" checkout -q -B "$branch" "$head" || die "git checkout $head failed"
}

# in_root <root> <timeout s> <log> <command>: bash -c <command> in /root/teamdesk inside the root, as root, with a
# container's environment plus the launcher's port settings; output to the log and (indented) here.
in_root() {
    local root=$1 limit=$2 log=$3 cmd=$4 rc=0 t=$SECONDS
    timeout --kill-after=30 "$limit" chroot "$root" /usr/bin/env -i \
        HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        TEAMDESK_PORT="$APP_PORT" TEAMDESK_HEALTH_TIMEOUT="$HEALTH_TIMEOUT" \
        TEAMDESK_DB_URL="jdbc:postgresql://127.0.0.1:$DB_PORT/teamdesk?stringtype=unspecified" \
        TEAMDESK_REDIS_URL="redis://127.0.0.1:$REDIS_PORT" \
        /bin/bash -c "cd /root/teamdesk && $cmd" </dev/null >"$log" 2>&1 || rc=$?
    [ "$rc" -ne 124 ] || echo "(timed out after $limit s)" >>"$log"
    info "(exit $rc after $(elapsed "$t"))"
    return "$rc"
}

show_tail() { printf '%s--- last lines of %s ---%s\n' "$RED" "$1" "$R" >&2; tail -n "${2:-60}" "$1" >&2; }

# ----------------------------------------------------------------------------------------
# One release

RESULTS=()

run_release() { # run_release <codename>: 0 when every step passed
    local codename=$1 num root logs t0 csv lines console unit
    num=$(release_number "$codename")
    root="$ROOT_BASE/teamdesk-fresh-$codename"
    logs="$REPO/.run/fresh-machine/$codename"
    t0=$SECONDS
    rm -rf "$logs"
    mkdir -p "$logs"
    printf '\n%sFresh machine: Debian %s (%s), minbase%s  %s\n' "$B" "$num" "$codename" "$R" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    CURRENT_ROOT=$root
    build_root "$codename" "$root" "$logs"
    clone_into "$root"

    step "./teamdesk up   (TEAMDESK_PORT=$APP_PORT, PostgreSQL on $DB_PORT, Redis on $REDIS_PORT; log ${logs#"$REPO"/}/up.log)"
    if ! in_root "$root" "$UP_TIMEOUT" "$logs/up.log" './teamdesk up'; then
        show_tail "$logs/up.log"
        fail_release "$codename" "$t0" "./teamdesk up failed"
        return 1
    fi
    csv=$(find "$root/root/teamdesk" -maxdepth 1 -name 'export-*.csv' -printf '%f\n' | head -n 1)
    console=$(grep -o "The console: http://127.0.0.1:$APP_PORT/" "$logs/up.log" | head -n 1 || true)
    mail=$(grep -o 'arrived: \.run/mail/new/[^ ]*' "$logs/up.log" | head -n 1 || true)
    if [ -z "$csv" ] || ! grep -q '^==> Downloading GET /api/v1/tasks/' "$logs/up.log" || [ -z "$console" ] || [ -z "$mail" ]; then
        show_tail "$logs/up.log"
        fail_release "$codename" "$t0" "./teamdesk up exited 0 but did not show the main job, download the CSV, show the reminder's email arriving and print the console's URL"
        return 1
    fi
    lines=$(wc -l <"$root/root/teamdesk/$csv")
    grep -E '^(==> (Checking prerequisites|apt-get install|PostgreSQL|Redis|A local mail catcher|Building|Starting|Creating|Downloading|A reminder by email)|    ok  (Java|202|export-|started|healthy|arrived)|    \(the cluster)|^(To|Subject): ' \
        "$logs/up.log" | cut -c 1-160 | sed 's/^/    | /'
    info "main job shown, $csv downloaded ($lines lines), the reminder's email $mail; $console"

    step "scripts/test-launcher.sh   (the launcher's own checks, on this minimal root)"
    if ! in_root "$root" 300 "$logs/test-launcher.log" 'scripts/test-launcher.sh'; then
        show_tail "$logs/test-launcher.log" 40
        fail_release "$codename" "$t0" "scripts/test-launcher.sh failed"
        return 1
    fi
    info "$(tail -n 1 "$logs/test-launcher.log")"

    step "./teamdesk down"
    if ! in_root "$root" 120 "$logs/down.log" './teamdesk down' || ! grep -q 'stopped' "$logs/down.log"; then
        show_tail "$logs/down.log"
        fail_release "$codename" "$t0" "./teamdesk down failed"
        return 1
    fi
    if [ -n "$(for p in $(root_pids "$root"); do tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep 'payara-micro'; done)" ]; then
        fail_release "$codename" "$t0" "./teamdesk down left Payara Micro running"
        return 1
    fi
    info "$(grep -E 'ok  stopped' "$logs/down.log" | head -n 1 | sed 's/^ *//')"

    unit="unit tests not run (--up-only)"
    if [ "$UP_ONLY" = 0 ]; then
        step "TEAMDESK_SERVER_SMOKE=0 ./teamdesk test -DskipITs   (unit tests; Redis Clusters on $CLUSTER_PORT and $FAILOVER_PORT; log ${logs#"$REPO"/}/test.log)"
        if ! in_root "$root" "$TEST_TIMEOUT" "$logs/test.log" \
            "TEAMDESK_SERVER_SMOKE=0 ./teamdesk test -DskipITs -Dteamdesk.test.clusterPort=$CLUSTER_PORT -Dteamdesk.test.failoverClusterPort=$FAILOVER_PORT"; then
            show_tail "$logs/test.log" 80
            fail_release "$codename" "$t0" "./teamdesk test -DskipITs failed"
            return 1
        fi
        # Surefire's totals, one line per execution (the default one and the Redis Cluster one)
        # Surefire's totals, one line per execution (the default one and the Redis Cluster one)
        unit=$(grep -E '^\[(INFO|WARNING)\] Tests run: [0-9]+, Failures: 0, Errors: 0, Skipped: [0-9]+$' "$logs/test.log" |
            sed -E 's/^.*Tests run: ([0-9]+), Failures: 0, Errors: 0, Skipped: ([0-9]+)$/\1 (\2 skipped)/' | paste -sd '+' - |
            sed 's/+/ + /g')
        [ -n "$unit" ] || unit="(no Surefire totals found in the log)"
        unit="unit tests passed: $unit, 0 failures"
        info "$unit"
    fi

    step "Cleaning up $root"
    cleanup_root "$root" "$KEEP" || { fail_release "$codename" "$t0" "clean-up failed"; return 1; }
    CURRENT_ROOT=''
    RESULTS+=("PASS  Debian $num ($codename) minbase, clean clone: ./teamdesk up printed the main job ($csv, $lines lines) and the console ${console#The console: } with no manual step; down stopped it; $unit; $(elapsed "$t0")")
    return 0
}

elapsed() { local s=$((SECONDS - $1)); printf '%d min %02d s' $((s / 60)) $((s % 60)); }

fail_release() { # fail_release <codename> <t0> <why>
    RESULTS+=("FAIL  Debian $(release_number "$1") ($1): $3 (logs: ${REPO}/.run/fresh-machine/$1/); $(elapsed "$2")")
    step "Cleaning up $CURRENT_ROOT"
    cleanup_root "$CURRENT_ROOT" "$KEEP" || true
    CURRENT_ROOT=''
}

# ----------------------------------------------------------------------------------------

ensure_debootstrap
MIRROR=${FRESH_MIRROR:-$(host_mirror | head -n 1)}
[ -n "$MIRROR" ] || die "no Debian archive found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list; set FRESH_MIRROR."
choose_ports

failed=0
for codename in "${RELEASES[@]}"; do
    run_release "$codename" || failed=1
done

printf '\n%sFresh-machine check%s (%s)\n' "$B" "$R" "$(git -C "$REPO" log -1 --format='%h %s' | cut -c 1-80)"
for line in "${RESULTS[@]}"; do
    case "$line" in PASS*) printf '%s%s%s\n' "$GRN" "$line" "$R" ;; *) printf '%s%s%s\n' "$RED" "$line" "$R" ;; esac
done
exit "$failed"
