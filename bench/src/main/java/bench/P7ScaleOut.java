package bench;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * P7 (issue 17): full-path tasks/s with N instances of the server on one PostgreSQL and one Redis. The same
 * load generator as P2 (closed loops creating SELF exports of 0 rows through the API) spreads its requests
 * over the instances round-robin; every instance's worker takes jobs from the one queue. Reports the rate
 * until all tasks are COMPLETED, each instance's CPU time during the run (utime + stime of its process,
 * from {@code /proc/<pid>/stat}), and the exactly-once check: every task COMPLETED with exactly one claim
 * (R7; {@code bench_claim} rows written by a trigger of the benchmark database).
 *
 * <p>Usage: {@code P7ScaleOut <base urls, comma-separated> <key> <jdbc url> <db user> <tasks> <clients>
 * <server pids, comma-separated>}. Prints one JSON line.
 */
public final class P7ScaleOut {

    private static final double TICKS_PER_SECOND = 100.0; // USER_HZ on Linux

    public static void main(String[] args) throws Exception {
        List<Api> apis = new ArrayList<>();
        for (String url : args[0].split(",")) {
            apis.add(new Api(url));
        }
        String token = Api.token(Path.of(args[1]), Api.IDLE, "bench-idle");
        int tasks = Integer.parseInt(args[4]);
        int clients = Integer.parseInt(args[5]);
        List<Long> pids = new ArrayList<>();
        for (String pid : args[6].split(",")) {
            pids.add(Long.parseLong(pid));
        }
        try (Connection db = DriverManager.getConnection(args[2], args[3], "")) {
            List<UUID> warm = new ArrayList<>();
            for (int i = 0; i < 30 * apis.size(); i++) { // warm-up of every instance, not counted
                warm.add(Api.idOf(apis.get(i % apis.size()).create(token, Api.TEAM_IDLE, P4Latency.BODY)));
            }
            P4Latency.awaitCompleted(db, warm);

            long[] cpuBefore = cpuTicks(pids);
            List<UUID> ids = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger next = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int c = 0; c < clients; c++) {
                Thread t = new Thread(() -> {
                    try {
                        int n;
                        while ((n = next.getAndIncrement()) < tasks) {
                            HttpResponse<String> r = apis.get(n % apis.size()).create(token, Api.TEAM_IDLE, P4Latency.BODY);
                            ids.add(Api.idOf(r));
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                t.start();
                threads.add(t);
            }
            for (Thread t : threads) {
                t.join(P4Latency.TIMEOUT_MS);
            }
            if (ids.size() != tasks) {
                throw new IllegalStateException("created " + ids.size() + " of " + tasks);
            }
            P4Latency.awaitCompleted(db, ids);
            double allS = (System.nanoTime() - t0) / 1e9;
            long[] cpuAfter = cpuTicks(pids);
            List<Double> cpu = new ArrayList<>();
            for (int i = 0; i < pids.size(); i++) {
                cpu.add((cpuAfter[i] - cpuBefore[i]) / TICKS_PER_SECOND);
            }
            long claims;
            long notOnce;
            try (PreparedStatement ps = db.prepareStatement("SELECT count(*), count(*) FILTER (WHERE n <> 1) FROM"
                    + " (SELECT t.id, (SELECT count(*) FROM bench_claim c WHERE c.task_id = t.id) AS n"
                    + " FROM background_task t WHERE t.id = ANY(?)) x")) {
                ps.setArray(1, db.createArrayOf("uuid", ids.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    claims = rs.getLong(1);
                    notOnce = rs.getLong(2);
                }
            }
            long totalClaims;
            try (PreparedStatement ps = db.prepareStatement("SELECT count(*) FROM bench_claim WHERE task_id = ANY(?)")) {
                ps.setArray(1, db.createArrayOf("uuid", ids.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    totalClaims = rs.getLong(1);
                }
            }
            double cpuTotal = cpu.stream().mapToDouble(Double::doubleValue).sum();
            System.err.printf(Locale.ROOT, "P7 %d instance(s): %d tasks all COMPLETED after %.2f s: %.0f tasks/s;"
                    + " server CPU %s s (%.2f ms per task); claims %d, tasks not claimed exactly once %d%n",
                    pids.size(), tasks, allS, tasks / allS, cpu, 1000 * cpuTotal / tasks, totalClaims, notOnce);
            System.out.println(String.format(Locale.ROOT, "{\"instances\":%d,\"tasks\":%d,\"clients\":%d,"
                    + "\"allCompletedSeconds\":%.3f,\"tasksPerSecond\":%.1f,\"cpuSecondsPerInstance\":[%s],"
                    + "\"serverCpuMsPerTask\":%.3f,\"tasksChecked\":%d,\"claims\":%d,\"tasksNotClaimedExactlyOnce\":%d}",
                    pids.size(), tasks, clients, allS, tasks / allS,
                    cpu.stream().map(v -> String.format(Locale.ROOT, "%.2f", v)).collect(Collectors.joining(",")),
                    1000 * cpuTotal / tasks, claims, totalClaims, notOnce));
            if (notOnce != 0 || totalClaims != tasks) {
                throw new IllegalStateException(notOnce + " tasks not claimed exactly once (" + totalClaims + " claims)");
            }
        }
    }

    /** @return utime + stime (clock ticks) of each process, from /proc/<pid>/stat (fields 14 and 15) */
    static long[] cpuTicks(List<Long> pids) throws Exception {
        long[] ticks = new long[pids.size()];
        for (int i = 0; i < pids.size(); i++) {
            String stat = Files.readString(Path.of("/proc", pids.get(i).toString(), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            ticks[i] = Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14, 15 counted from 1 before "state"
        }
        return ticks;
    }
}
