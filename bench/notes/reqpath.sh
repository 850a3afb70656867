#!/usr/bin/env bash
# Server CPU per request: bench/run serve, warm, then measured API and engine rounds; optional JFR of one API round.
# usage: bench/notes/reqpath.sh <label> <work tree> [jfr]   (writes $REQPATH_OUT [/tmp]/req-<label>.*)
set -u
label=$1; tree=$2; jfr=${3:-}
out=${REQPATH_OUT:-/tmp}/req-$label
cd "$tree"
BENCH_SERVE_SECONDS=1500 bench/run serve > $out.serve.log 2>&1 &
SERVE=$!
for i in $(seq 1 120); do grep -q "serving http" $out.serve.log && break; sleep 5; done
pid=$(cat bench/results/raw/*/server.pid 2>/dev/null | tail -1)
pid=$(ls -t bench/results/raw/*/server.pid | head -1 | xargs cat)
CP='bench/target/classes:bench/target/lib/*'
JDBC='jdbc:postgresql://127.0.0.1:5432/teamdesk_bench?stringtype=unspecified'
drv() { java -Xmx2g -Duser.timezone=UTC -cp "$CP" bench.P4Latency "$1" http://127.0.0.1:18080 dev/jwt/private.pem "$JDBC" root 3000 "$2" 2>/dev/null; }
ticks() { awk '{print $14 + $15}' /proc/$pid/stat; }
vac() { psql -X -q -h 127.0.0.1 -d teamdesk_bench -c "VACUUM (ANALYZE) background_task" -c "VACUUM (ANALYZE) task_execution" -c "VACUUM (ANALYZE) task_result_chunk" 2>/dev/null; }
for i in $(seq 1 8); do vac; drv throughput 8 > /dev/null; done
for i in 1 2 3; do vac; drv engine 0 > /dev/null; done
hz=$(getconf CLK_TCK)
for r in 1 2 3; do
  vac; a=$(ticks); res=$(drv throughput 8); b=$(ticks)
  echo "api $r $(jq -r .tasksPerSecond <<<"$res") tasks/s, server ms/task $(echo "($b - $a) * 1000 / $hz / 3000" | bc -l | cut -c1-5)" >> $out.txt
  vac; a=$(ticks); res=$(drv engine 0); b=$(ticks)
  echo "engine $r $(jq -r .engineTasksPerSecond <<<"$res") tasks/s, server ms/task $(echo "($b - $a) * 1000 / $hz / 3000" | bc -l | cut -c1-5)" >> $out.txt
done
if [ -n "$jfr" ]; then
  vac; jcmd $pid JFR.start name=req settings=profile filename=$out.jfr > /dev/null
  drv throughput 8 > /dev/null; drv throughput 8 > /dev/null
  jcmd $pid JFR.stop name=req > /dev/null
fi
kill $SERVE; wait $SERVE
echo done >> $out.txt
