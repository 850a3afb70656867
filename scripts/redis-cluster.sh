#!/usr/bin/env bash
# A throwaway local Redis Cluster for tests and trials: 3 masters + 3 replicas on consecutive ports
# (default 7101-7106), nothing persisted, everything under one directory.
#   scripts/redis-cluster.sh start [BASE_PORT]   # prints the redis-cluster:// URL on its last line
#   scripts/redis-cluster.sh stop  [BASE_PORT]
# Fails loudly (exit != 0) when redis-server/redis-cli are missing or the cluster does not form.
set -euo pipefail

cmd="${1:-}"
base="${2:-${TEAMDESK_CLUSTER_BASE_PORT:-7101}}"
dir="${TMPDIR:-/tmp}/teamdesk-redis-cluster-$base"
ports=()
for i in 0 1 2 3 4 5; do ports+=($((base + i))); done

die() { echo "redis-cluster: $*" >&2; exit 1; }

stop() {
    for p in "${ports[@]}"; do
        redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true
    done
    rm -rf "$dir"
}

start() {
    command -v redis-server >/dev/null || die "redis-server not found (Debian package redis-server)"
    command -v redis-cli >/dev/null || die "redis-cli not found (Debian package redis-tools)"
    stop
    mkdir -p "$dir"
    for p in "${ports[@]}"; do
        redis-server --port "$p" --bind 127.0.0.1 --daemonize yes --dir "$dir" \
            --cluster-enabled yes --cluster-config-file "nodes-$p.conf" --cluster-node-timeout 2000 \
            --save "" --appendonly no --logfile "$dir/redis-$p.log" --pidfile "$dir/redis-$p.pid" \
            --repl-diskless-sync-delay 0 \
            || die "redis-server on port $p did not start (see $dir/redis-$p.log)"
    done
    for p in "${ports[@]}"; do
        for _ in $(seq 1 100); do
            redis-cli -p "$p" ping >/dev/null 2>&1 && break
            sleep 0.1
        done
        redis-cli -p "$p" ping >/dev/null 2>&1 || die "node $p does not answer PING"
    done
    local addrs=()
    for p in "${ports[@]}"; do addrs+=("127.0.0.1:$p"); done
    redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log" 2>&1 \
        || die "cluster create failed: $(tail -5 "$dir/create.log")"
    for _ in $(seq 1 200); do
        if redis-cli -p "$base" cluster info 2>/dev/null | grep -q 'cluster_state:ok'; then
            # every node must agree, or the first MOVED reply may point at a node that has not caught up
            local all=1
            for p in "${ports[@]}"; do
                redis-cli -p "$p" cluster info | grep -q 'cluster_state:ok' || all=0
            done
            # and every replica attached and in sync with its master, so that a failover has somewhere to
            # go: a replica still in its first full sync cannot take a manual failover (it times out and is
            # not retried) and would lose the master's writes if the master died
            [ "$(redis-cli -p "$base" cluster nodes | grep -c ' slave ')" = 3 ] || all=0
            for p in "${ports[@]}"; do
                local repl
                repl=$(redis-cli -p "$p" info replication)
                if grep -q 'role:slave' <<<"$repl"; then
                    grep -q 'master_link_status:up' <<<"$repl" || all=0
                    grep -q 'master_sync_in_progress:0' <<<"$repl" || all=0
                fi
            done
            if [ "$all" = 1 ]; then
                echo "redis-cluster://127.0.0.1:${ports[0]},127.0.0.1:${ports[1]},127.0.0.1:${ports[2]}"
                return 0
            fi
        fi
        sleep 0.1
    done
    die "cluster did not reach cluster_state:ok"
}

case "$cmd" in
    start) start ;;
    stop) stop ;;
    *) die "usage: $0 start|stop [BASE_PORT]" ;;
esac
