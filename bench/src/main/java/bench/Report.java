package bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * Writes docs/benchmarks.md from the latest result of every figure (bench/results/P1.json ... P5.json)
 * and the hand-written analysis in bench/notes/P<n>.md, and prints the summary table.
 *
 * <p>Ratios: ours/peer for throughputs, peer/ours for times, so above 1 always means we are ahead.
 *
 * <p>Usage: {@code Report <results dir> <docs/benchmarks.md>}.
 */
public final class Report {

    private final Path results;
    private final Map<String, JsonObject> figures = new TreeMap<>();
    private final StringBuilder md = new StringBuilder();
    private final List<String[]> summary = new ArrayList<>();
    private final List<String> verdicts = new ArrayList<>();

    private Report(Path results) throws IOException {
        this(results, "");
    }

    /** suffix "" reads the latest run of each figure, ".prev" the run before it (kept by bench/run's finish). */
    private Report(Path results, String suffix) throws IOException {
        this.results = results;
        for (String f : List.of("P1", "P2", "P2s", "P3", "P3L", "P4", "P5", "P7", "P8", "P9", "P10")) {
            Path p = results.resolve(f + suffix + ".json");
            if (Files.exists(p)) {
                figures.put(f, JsonParser.parseString(Files.readString(p)).getAsJsonObject());
            }
        }
    }

    public static void main(String[] args) throws IOException {
        Report r = new Report(Path.of(args[0]));
        String doc = r.render();
        Files.writeString(Path.of(args[1]), doc, StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(r.table());
        r.verdicts.forEach(v -> System.out.println("  " + v));
        System.out.println("\nwritten: " + args[1]);
    }

    // ---- summary rows ----

    private void details(StringBuilder details) throws IOException {
        p1(details);
        p2(details);
        p2s(details);
        p3(details);
        p3l(details);
        p4(details);
        p5(details);
        p7(details);
        p8(details);
        p9(details);
        p10(details);
    }

    // ---- P10 (issue 53) ----

    private void p10(StringBuilder d) throws IOException {
        JsonObject r = figures.get("P10");
        long tickets = r == null ? 100_000 : r.get("tickets").getAsLong();
        d.append("## P10 SLA clocks at ").append(fmt0(tickets)).append(" tickets (issue 53)\n\n");
        if (r == null || r.has("blocked")) { // (not missing(): its verdict key is the figure's first two characters)
            if (r != null) {
                meta(d, r);
            }
            d.append(r == null ? "Not run yet.\n\n" : "**Not measured:** " + s(r, "blocked") + "\n\n");
            notes(d, "P10");
            return;
        }
        JsonObject w = r.getAsJsonObject("calendarWrite");
        JsonObject alone = r.getAsJsonObject("statementsAlone");
        JsonObject ledger = r.getAsJsonObject("ledger");
        boolean seq = false;
        JsonObject idle = null;
        JsonObject full = null;
        for (JsonElement e : r.getAsJsonArray("sweeps")) {
            JsonObject o = e.getAsJsonObject();
            seq |= o.get("seqScan").getAsBoolean();
            if (o.get("rows").getAsInt() == 0) {
                idle = o;
            } else {
                full = o;
            }
        }
        summary.add(new String[] {"P10 calendar write, " + fmt0(w.get("clocksUpdated").getAsLong()) + " clocks and "
                + fmt0(w.get("escalationsInserted").getAsLong()) + " escalations (s)", fmt2(w.get("medianSeconds")
                .getAsDouble()), "—", "—", "(reported)"});
        summary.add(new String[] {"P10 dispatch sweep, 0 / 200 due, " + fmt0(ledger.get("rows").getAsLong())
                + "-row ledger (ms)", fmt1(idle.get("medianMs").getAsDouble()) + " / " + fmt1(full.get("medianMs")
                .getAsDouble()), "—", "—", "index scans only"});
        verdict("P10", !seq, String.format(Locale.ROOT, "dispatch sweep %.1f ms (nothing due) and %.1f ms (200 due) on"
                + " %s ledger rows; %s; the calendar write %.2f s (no target)", idle.get("medianMs").getAsDouble(),
                full.get("medianMs").getAsDouble(), fmt0(ledger.get("rows").getAsLong()), seq ? "a plan has a Seq Scan"
                : "index scans only", w.get("medianSeconds").getAsDouble()));
        String load = s(r, "loadBefore");
        boolean busy = Double.parseDouble(load.split(" ")[0]) > 2;
        d.append("### Numbers (").append(busy ? "trial run, machine busy, load " + load + " before"
                : "load " + load + " before").append(")\n\n");
        meta(d, r);
        d.append(String.format(Locale.ROOT, "%s OPEN tickets of one team, %s running clocks (first response and"
                + " resolution), %s escalation rows in the ledger before the first write. The server: %s.%n%n",
                fmt0(tickets), fmt0(r.get("runningClocks").getAsLong()), fmt0(r.get("escalationRowsAtStart").getAsLong()),
                r.has("serverJavaOpts") ? s(r, "serverJavaOpts") : "-Xmx512m"));
        d.append("| calendar write (PUT .../calendar with If-Match) | seconds | clocks updated | escalation rows inserted |"
                + " load before |\n|---|---|---|---|---|\n");
        int i = 0;
        for (JsonElement e : w.getAsJsonArray("each")) {
            JsonObject o = e.getAsJsonObject();
            d.append("| run ").append(++i).append(" | ").append(fmt2(o.get("seconds").getAsDouble())).append(" | ")
                    .append(fmt0(o.get("clocksMoved").getAsLong())).append(" | ")
                    .append(fmt0(o.get("escalationsInserted").getAsLong())).append(" | ").append(s(o, "loadBefore"))
                    .append(" |\n");
        }
        d.append("| **median** | **").append(fmt2(w.get("medianSeconds").getAsDouble())).append("** | | | |\n\n");
        d.append(String.format(Locale.ROOT, "The write's two big statements alone (median of 3, rolled back): the"
                + " clocks' one UPDATE of %s rows %.0f ms; the escalations' one INSERT of %s rows %.0f ms.%n%n",
                fmt0(alone.get("clockRows").getAsLong()), alone.get("clockUpdateMedianMs").getAsDouble(),
                fmt0(alone.get("escalationRows").getAsLong()), alone.get("escalationInsertMedianMs").getAsDouble()));
        d.append(String.format(Locale.ROOT, "Dispatch sweep (lockDue + one markDispatched + COMMIT, %d runs after"
                + " warm-up) on a ledger of %s rows, %s, %s of them WAITING and undispatched:%n%n",
                31, fmt0(ledger.get("rows").getAsLong()), s(ledger, "size"),
                fmt0(ledger.get("waitingUndispatched").getAsLong())));
        d.append("| rows due | median ms | p90 ms | min ms | max ms | Seq Scan? |\n|---|---|---|---|---|---|\n");
        for (JsonObject o : new JsonObject[] {idle, full}) {
            d.append("| ").append(o.get("rows").getAsInt()).append(" | ").append(fmt2(o.get("medianMs").getAsDouble()))
                    .append(" | ").append(fmt2(o.get("p90Ms").getAsDouble())).append(" | ")
                    .append(fmt2(o.get("minMs").getAsDouble())).append(" | ").append(fmt2(o.get("maxMs").getAsDouble()))
                    .append(" | ").append(o.get("seqScan").getAsBoolean() ? "yes" : "no").append(" |\n");
        }
        d.append('\n');
        notes(d, "P10");
        d.append("### P10 plans\n\n");
        for (JsonObject o : new JsonObject[] {idle, full}) {
            d.append("lockDue, ").append(o.get("rows").getAsInt()).append(" due — `EXPLAIN (ANALYZE, BUFFERS)`:\n\n```\n");
            o.getAsJsonArray("plan").forEach(l -> d.append(l.getAsString()).append('\n'));
            d.append("```\n\n");
            if (!o.getAsJsonArray("markPlan").isEmpty()) {
                d.append("markDispatched of those ").append(o.get("rows").getAsInt()).append(":\n\n```\n");
                o.getAsJsonArray("markPlan").forEach(l -> d.append(l.getAsString()).append('\n'));
                d.append("```\n\n");
            }
        }
    }

    // ---- P9 (issue 52) ----

    private void p9(StringBuilder d) throws IOException {
        d.append("## P9: batches (issue 52): 10 000 reminders as 10 batches of 1 000, against one POST each\n\n");
        JsonObject r = figures.get("P9");
        if (r == null || r.has("blocked")) {
            missing("P9 create, batches vs one POST each (s)", "(one POST each)", "≥ 20", d, r);
            return;
        }
        JsonObject batch = r.getAsJsonObject("batch");
        JsonObject single = r.getAsJsonObject("single");
        JsonObject seed = r.getAsJsonObject("seed");
        double bc = batch.get("createSeconds").getAsDouble();
        double sc = single.get("createSeconds").getAsDouble();
        double be = batch.get("claimToLastCompletionSeconds").getAsDouble();
        double se = single.get("claimToLastCompletionSeconds").getAsDouble();
        JsonObject engine = r.has("engine") && r.get("engine").isJsonObject() ? r.getAsJsonObject("engine") : null;
        double ee = engine == null || engine.get("claimToLastCompletionSeconds").isJsonNull() ? Double.NaN
                : engine.get("claimToLastCompletionSeconds").getAsDouble();
        double flow = seed.get("flowCreateSeconds").getAsDouble();
        summary.add(new String[] {"P9 create 10 000 reminders, batches (s)", fmt2(bc), fmt2(sc) + " (one POST each)",
                fmt2(sc / bc), "≥ 20"});
        summary.add(new String[] {"P9 execution with the batch's bookkeeping (s)", fmt2(be), fmt2(ee)
                + " (the same reminders, no batch)", fmt2(ee / be), "≥ 0.91"});
        summary.add(new String[] {"P9 batch create vs BullMQ flows (s)", fmt2(bc), fmt2(flow) + " (BullMQ FlowProducer)",
                fmt2(flow / bc), "(reported)"});
        verdict("P9", sc / bc >= 20 && ee / be >= 0.91, "create " + fmt2(sc / bc) + " (≥ 20), bookkeeping "
                + fmt2(ee / be) + " (≥ 0.91)");
        meta(d, r);
        d.append("| ours | create (s) | first claim to last completion (s) | end to end (s) | machine CPU per task (ms) |\n"
                + "|---|---|---|---|---|\n");
        d.append("| batches of 1 000, a report each | ").append(val(batch.get("createSeconds"))).append(" | ")
                .append(val(batch.get("claimToLastCompletionSeconds"))).append(" | ")
                .append(val(batch.get("allCompletedSeconds"))).append(" | ").append(val(batch.get("cpuMsPerTask")))
                .append(" |\n");
        d.append("| one POST each (8 clients) | ").append(val(single.get("createSeconds"))).append(" | ")
                .append(val(single.get("claimToLastCompletionSeconds"))).append(" | ")
                .append(val(single.get("allCompletedSeconds"))).append(" | ").append(val(single.get("cpuMsPerTask")))
                .append(" |\n");
        d.append("| the same reminders as plain rows (SQL, no batch) | — | ")
                .append(engine == null ? "—" : val(engine.get("claimToLastCompletionSeconds"))).append(" | — | — |\n\n");
        d.append("The seed's stack, create side only (BullMQ ").append(val(seed.get("bullmq")))
                .append(", no ledger rows): 10 flows of 1 000 children ").append(val(seed.get("flowCreateSeconds")))
                .append(" s; 10 addBulk of 1 000 ").append(val(seed.get("addBulkCreateSeconds"))).append(" s.\n\n");
        notes(d, "P9");
    }

    private String render() throws IOException {
        StringBuilder details = new StringBuilder();
        details(details);
        md.append("# Benchmarks\n\n")
                .append("Generated by `bench/run` (issue 7) from `bench/results/P<n>.json` (the latest run of each figure)\n")
                .append("and the analysis in `bench/notes/P<n>.md`. `ratio` is ours/peer for throughputs and peer/ours for\n")
                .append("times, so above 1 always means we are ahead.\n\n")
                .append(table()).append('\n');
        if (!verdicts.isEmpty()) {
            md.append("Against the targets (issue 16 asks for each on two runs):\n\n");
            List<String> before = previousVerdicts();
            for (String v : verdicts) {
                md.append("- ").append(v);
                String figure = v.substring(0, v.indexOf(' '));
                before.stream().filter(b -> b.startsWith(figure + " is BELOW") && v.startsWith(figure + " meets"))
                        .findFirst().ifPresent(b -> md.append(" — in this run only; the run before: ")
                                .append(b.substring(b.indexOf(':') + 2)));
                md.append('\n');
            }
            md.append('\n');
        }
        md.append("""
                ## How to run

                ```bash
                bench/run            # every figure: P1 P5 P3 P4 P2 (25-40 minutes on a busy 2-core machine)
                bench/run P1 P5      # some figures; the others keep their last result
                bench/run report     # only rewrite this page from bench/results/
                bench/run serve      # the benchmark server with its data, up for BENCH_SERVE_SECONDS, to profile
                                     # by hand (e.g. jcmd <pid> JFR.start); cleaned up afterwards
                ```

                Needs Java 17, Maven, Node 18+ with npm, `psql`, `redis-cli`, `jq`, `curl`, `openssl`, `jcmd`, a local
                PostgreSQL superuser (`BENCH_PGUSER`, default `root`) and Redis on 127.0.0.1:6379. The drivers are a
                Maven build of their own (`bench/pom.xml`, not a module of the root pom: `.ci/run` and
                `./teamdesk test` never see it) that compiles the queue package from `src/main/java`; the BullMQ
                side is `bench/bullmq` (`npm ci`). The script uses only its own Redis key prefix
                (`teamdesk-bench-<random>-*`), its own databases (`teamdesk_bench`, `teamdesk_bench_dbs`) and role,
                and a Payara Micro of its own built from a copy of the work tree, and removes all of them on exit.
                Knobs: `BENCH_JOBS`, `BENCH_ROUNDS`, `BENCH_P2_TASKS`, `BENCH_P4_TASKS`, `BENCH_P4_RATE`,
                `BENCH_CONCURRENCY`, `BENCH_P8_FLOOD`, `BENCH_P8_ROUNDS`, `BENCH_P8_SHARE_TASKS`, `BENCH_PORT`,
                `BENCH_SERVER_ENV` (extra environment of the server for what-if runs; see the header of
                `bench/run`). Raw output of every run: `bench/results/raw/` (not committed).

                **Noise.** These numbers come from a shared 2-core machine; each figure records the load average
                before and after it ran. Other sessions' builds, test suites and servers ran at the same time
                (load averages of 5 to 17 during the runs recorded here), so absolute numbers move by tens of
                percent between runs, and latencies (P4) by several times; the ratios of P1 and P2 come from
                alternating rounds (ABBA order) and medians to cancel most of that. Quote numbers only from a run
                on a quiet machine.

                """);
        md.append("**Versions** (from the build files at the time of this report): ").append(versions()).append(".\n\n");
        md.append(details);
        return md.toString();
    }

    /** Versions of what is compared, read from the build files (bench/ sits next to the root pom). */
    private String versions() throws IOException {
        Path bench = results.toAbsolutePath().getParent();
        String root = read(bench.getParent().resolve("pom.xml"));
        String benchPom = read(bench.resolve("pom.xml"));
        String lock = read(bench.resolve("bullmq/package-lock.json"));
        return "Payara Micro " + tag(root, "payara.micro.version") + ", Jedis " + tag(benchPom, "jedis.version")
                + ", pgjdbc " + tag(benchPom, "postgresql.version") + ", db-scheduler " + tag(benchPom, "db-scheduler.version")
                + " (HikariCP " + tag(benchPom, "hikaricp.version") + "), BullMQ " + npm(lock, "bullmq") + " with ioredis "
                + npm(lock, "ioredis");
    }

    private static String read(Path p) throws IOException {
        return Files.exists(p) ? Files.readString(p) : "";
    }

    private static String tag(String xml, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<" + java.util.regex.Pattern.quote(name) + ">([^<]+)<").matcher(xml);
        return m.find() ? m.group(1) : "?";
    }

    private static String npm(String lock, String pkg) {
        try {
            return JsonParser.parseString(lock).getAsJsonObject().getAsJsonObject("packages")
                    .getAsJsonObject("node_modules/" + pkg).get("version").getAsString();
        } catch (RuntimeException e) {
            return "?";
        }
    }

    private String table() throws IOException {
        Map<String, String> previous = previousRatios();
        StringBuilder t = new StringBuilder("| figure | ours | peer | ratio | target | ratio in the run before (load before) |\n"
                + "|---|---|---|---|---|---|\n");
        for (String[] row : summary) {
            t.append("| ").append(String.join(" | ", row)).append(" | ")
                    .append(previous.getOrDefault(rowKey(row[0]), "—")).append(" |\n");
        }
        return t.toString();
    }

    /** A row's identity across runs: its first two words ("P2 engine", "P5 dispatch"). */
    private static String rowKey(String figure) {
        String[] w = figure.split(" ");
        return w.length > 1 ? w[0] + " " + w[1] : figure;
    }

    /** The verdicts of the run before (the {@code .prev} results), or none. */
    private List<String> previousVerdicts() throws IOException {
        Report prev = new Report(results, ".prev");
        if (prev.figures.isEmpty()) {
            return List.of();
        }
        prev.details(new StringBuilder());
        return prev.verdicts;
    }

    /** The ratio column of each row as the previous run of its figure gave it, with that run's load. */
    private Map<String, String> previousRatios() throws IOException {
        Map<String, String> out = new TreeMap<>();
        Report prev = new Report(results, ".prev");
        if (prev.figures.isEmpty()) {
            return out;
        }
        prev.details(new StringBuilder());
        for (String[] row : prev.summary) {
            JsonObject r = prev.figures.get(row[0].substring(0, 2));
            String load = loadBefore(r);
            load = load != null ? " (" + load + ")" : "";
            out.put(rowKey(row[0]), row[3] + load);
        }
        return out;
    }

    // ---- P1 ----

    private void p1(StringBuilder d) throws IOException {
        d.append("## P1 queue throughput: ours vs BullMQ\n\n");
        JsonObject r = figures.get("P1");
        if (r == null) {
            missing("P1 processing c=16 (jobs/s)", "(BullMQ)", "≥ 1.5", d);
            return;
        }
        JsonArray rounds = r.getAsJsonArray("rounds");
        String[] metrics = {"add", "bulkAdd", "process1", "process16"};
        String[] labels = {"add, one at a time", "bulk add (1000 per call)", "processing c=1", "processing c=16"};
        Map<String, double[]> med = new TreeMap<>();
        for (String side : List.of("ours", "bullmq")) {
            double[] m = new double[metrics.length];
            for (int i = 0; i < metrics.length; i++) {
                List<Double> v = new ArrayList<>();
                for (JsonElement e : rounds) {
                    JsonObject o = e.getAsJsonObject();
                    if (o.get("side").getAsString().equals(side)) {
                        v.add(o.get(metrics[i]).getAsDouble());
                    }
                }
                m[i] = median(v);
            }
            med.put(side, m);
        }
        double[] ours = med.get("ours");
        double[] bull = med.get("bullmq");
        double ratio16 = ours[3] / bull[3];
        summary.add(new String[] {"P1 processing c=16 (jobs/s)", fmt0(ours[3]), fmt0(bull[3]) + " (BullMQ)",
                fmt2(ratio16), "≥ 2.0"});
        double cpuOurs = median(cpu16(rounds, "ours"));
        double cpuBull = median(cpu16(rounds, "bullmq"));
        summary.add(new String[] {"P1 Redis CPU per processed job, c=16 (µs)", fmt1(cpuOurs), fmt1(cpuBull) + " (BullMQ)",
                fmt2(cpuBull / cpuOurs), "≤ 20 µs"});
        verdict("P1", ratio16 >= 2.0 && cpuOurs <= 20, String.format(Locale.ROOT,
                "processing c=16 ratio %.2f vs ≥ 2.0; Redis CPU %.1f µs per job (BullMQ %.1f) vs ≤ 20", ratio16, cpuOurs,
                cpuBull));
        meta(d, r);
        int warmup = r.has("warmupJobs") ? r.get("warmupJobs").getAsInt() : 0;
        d.append(String.format(Locale.ROOT, "%d no-op jobs per phase, %d rounds per side, alternating (ABBA); "
                + "BullMQ %s with ioredis %s. %s Medians of the rounds:%n%n", r.get("jobs").getAsInt(),
                rounds.size() / 2, s(r, "bullmq"), s(r, "ioredis"), warmup > 0
                        ? String.format(Locale.ROOT, "Each driver first runs both steps uncounted with %d jobs in its own"
                                + " process (JVM / V8 warm).", warmup)
                        : "No warm-up pass."));
        d.append("| jobs/s (median) | ours | BullMQ | ratio ours/BullMQ |\n|---|---|---|---|\n");
        for (int i = 0; i < metrics.length; i++) {
            d.append("| ").append(labels[i]).append(" | ").append(fmt0(ours[i])).append(" | ").append(fmt0(bull[i]))
                    .append(" | ").append(fmt2(ours[i] / bull[i])).append(" |\n");
        }
        d.append("\nEvery round:\n\n| round | side | add | bulk add | c=1 | c=16 |\n|---|---|---|---|---|---|\n");
        for (JsonElement e : rounds) {
            JsonObject o = e.getAsJsonObject();
            d.append("| ").append(o.get("round").getAsInt()).append(" | ").append(s(o, "side"));
            for (String m : metrics) {
                d.append(" | ").append(fmt0(o.get(m).getAsDouble()));
            }
            d.append(" |\n");
        }
        d.append("\nPer job, measured around the processing phases with `INFO commandstats` / `INFO cpu` deltas of "
                + "the Redis server (first round of each side; server-wide, so anything else on the same Redis counts "
                + "too). `evalsha` is the number of script round trips; the other commands run inside the scripts.\n\n");
        d.append("| per job | ours c=1 | ours c=16 | BullMQ c=1 | BullMQ c=16 |\n|---|---|---|---|---|\n");
        JsonObject o1 = firstRound(rounds, "ours");
        JsonObject b1 = firstRound(rounds, "bullmq");
        Map<String, String[]> rows = new TreeMap<>();
        JsonObject[][] src = {{o1, o1}, {b1, b1}};
        String[] keys = {"profile1", "profile16"};
        int col = 0;
        for (JsonObject[] pair : src) {
            for (int k = 0; k < 2; k++) {
                JsonObject p = pair[k].getAsJsonObject(keys[k]);
                String cpu = fmt1(p.get("redisCpuUsPerJob").getAsDouble());
                rows.computeIfAbsent(" Redis CPU µs", x -> new String[4])[col] = cpu;
                for (Map.Entry<String, JsonElement> c : p.getAsJsonObject("callsPerJob").entrySet()) {
                    double v = c.getValue().getAsDouble();
                    if (v >= 0.05) {
                        rows.computeIfAbsent(c.getKey(), x -> new String[4])[col] = fmt2(v);
                    }
                }
                col++;
            }
        }
        for (Map.Entry<String, String[]> e : rows.entrySet()) {
            d.append("| ").append(e.getKey().trim());
            for (String v : e.getValue()) {
                d.append(" | ").append(v == null ? "" : v);
            }
            d.append(" |\n");
        }
        d.append('\n');
        notes(d, "P1");
    }

    /** Redis CPU per processed job at c=16 of every round of one side that recorded it. */
    private static List<Double> cpu16(JsonArray rounds, String side) {
        List<Double> v = new ArrayList<>();
        for (JsonElement e : rounds) {
            JsonObject o = e.getAsJsonObject();
            if (o.get("side").getAsString().equals(side) && o.has("profile16")) {
                v.add(o.getAsJsonObject("profile16").get("redisCpuUsPerJob").getAsDouble());
            }
        }
        return v;
    }

    private static JsonObject firstRound(JsonArray rounds, String side) {
        for (JsonElement e : rounds) {
            if (e.getAsJsonObject().get("side").getAsString().equals(side)) {
                return e.getAsJsonObject();
            }
        }
        throw new IllegalStateException("no round of " + side);
    }

    // ---- P2 ----

    private void p2(StringBuilder d) throws IOException {
        d.append("## P2 full-path tasks/s: ours vs db-scheduler\n\n");
        JsonObject r = figures.get("P2");
        if (r == null || r.has("blocked")) {
            missing("P2 engine, no HTTP (tasks/s)", "(db-scheduler)", "≥ 1.0; API ≥ 500 tasks/s", d, r);
            return;
        }
        double ours = r.getAsJsonObject("ours").get("tasksPerSecond").getAsDouble();
        double peer = r.getAsJsonObject("peer").get("tasksPerSecond").getAsDouble();
        double engine = r.getAsJsonObject("ours").has("engineTasksPerSecond")
                ? r.getAsJsonObject("ours").get("engineTasksPerSecond").getAsDouble() : Double.NaN;
        summary.add(new String[] {"P2 engine, no HTTP (tasks/s)", Double.isNaN(engine) ? "not measured" : fmt0(engine),
                fmt0(peer) + " (db-scheduler)", Double.isNaN(engine) ? "—" : fmt2(engine / peer), "≥ 1.0"});
        summary.add(new String[] {"P2 API, full path (tasks/s)", fmt0(ours), "— (db-scheduler has no API; ratio to the target)",
                fmt2(ours / 500), "≥ 500 tasks/s"});
        verdict("P2", engine / peer >= 1.0 && ours >= 500, String.format(Locale.ROOT,
                "engine %s tasks/s vs db-scheduler %s (ratio %.2f, target ≥ 1.0); through the API %s tasks/s vs ≥ 500",
                fmt0(engine), fmt0(peer), engine / peer, fmt0(ours)));
        meta(d, r);
        d.append("| | ours | db-scheduler |\n|---|---|---|\n");
        JsonObject o = r.getAsJsonObject("ours");
        JsonObject p = r.getAsJsonObject("peer");
        for (String k : union(o, p)) {
            d.append("| ").append(k).append(" | ").append(val(o.get(k))).append(" | ").append(val(p.get(k))).append(" |\n");
        }
        d.append('\n');
        notes(d, "P2");
    }

    // ---- P2s / P2r (issue 33) ----

    private static double side(JsonObject sides, String name) {
        JsonObject o = sides.has(name) ? sides.getAsJsonObject(name) : null;
        return o == null || o.get("tasksPerSecond").isJsonNull() ? Double.NaN : o.get("tasksPerSecond").getAsDouble();
    }

    private void p2s(StringBuilder d) throws IOException {
        d.append("## P2s and P2r: ours vs the seed's stack (BullMQ + node-postgres) and, on reminders, db-scheduler\n\n");
        JsonObject r = figures.get("P2s");
        if (r == null || r.has("blocked")) {
            missing("P2s engine vs the seed's stack (tasks/s)", "(BullMQ + node-postgres)", "> 1.0", d, r);
            return;
        }
        JsonObject sides = r.getAsJsonObject("sides");
        String[][] rows = {
                {"P2s engine, no-op export (tasks/s)", "ours-engine", "seed-engine", "(seed's stack)", "> 1.0"},
                {"P2s API, full path (tasks/s)", "ours-api", "seed-api", "(seed's stack)", "> 1.0"},
                {"P2r reminders vs db-scheduler (tasks/s)", "ours-reminder", "dbs-reminder", "(db-scheduler)", "≥ 1.0"},
                {"P2r reminders vs the seed's stack (tasks/s)", "ours-reminder", "seed-reminder", "(seed's stack)", "> 1.0"}};
        boolean ok = true;
        StringBuilder v = new StringBuilder();
        for (String[] row : rows) {
            double ours = side(sides, row[1]);
            double peer = side(sides, row[2]);
            double ratio = ours / peer;
            summary.add(new String[] {row[0], fmt0(ours), fmt0(peer) + " " + row[3], fmt2(ratio), row[4]});
            ok &= row[4].startsWith("≥") ? ratio >= 1.0 : ratio > 1.0;
            v.append(v.length() == 0 ? "" : "; ").append(row[0].replace(" (tasks/s)", "")).append(' ')
                    .append(fmt2(ratio)).append(" (").append(row[4]).append(')');
        }
        verdict("P2s", ok, v.toString());
        meta(d, r);
        d.append("| side, mode | tasks/s (median) | rounds | machine CPU per task (ms) | warm-up tasks/s |\n|---|---|---|---|---|\n");
        for (String k : sides.keySet()) {
            JsonObject o = sides.getAsJsonObject(k);
            JsonObject cpu = o.has("cpuMsPerTask") && o.get("cpuMsPerTask").isJsonObject()
                    ? o.getAsJsonObject("cpuMsPerTask") : null;
            d.append("| ").append(k).append(" | ").append(val(o.get("tasksPerSecond"))).append(" | ")
                    .append(val(o.get("rounds"))).append(" | ")
                    .append(cpu == null ? "—" : val(cpu.get("machine"))).append(" | ")
                    .append(val(o.get("warmupTasksPerSecond"))).append(" |\n");
        }
        d.append('\n');
        notes(d, "P2s");
    }

    // ---- P3 ----

    private void p3(StringBuilder d) throws IOException {
        d.append("## P3 export of 50 000 tickets vs `COPY` (the floor)\n\n");
        JsonObject r = figures.get("P3");
        if (r == null) {
            missing("P3 export 50 000 tickets (s)", "(psql \\copy)", "≥ 0.67 (≤ 1.5× COPY)", d);
            return;
        }
        double copy = r.get("copyMedianS").getAsDouble();
        if (r.has("blocked")) {
            summary.add(new String[] {"P3 export 50 000 tickets (s)", "not measured", fmt3(copy) + " (psql \\copy)",
                    "—", "≥ 0.67 (≤ 1.5× COPY)"});
            verdict("P3", false, "ours not measured: " + s(r, "blocked"));
        } else {
            double ours = r.get("exportMedianS").getAsDouble();
            double ratio = copy / ours;
            summary.add(new String[] {"P3 export 50 000 tickets (s)", fmt3(ours), fmt3(copy) + " (psql \\copy)",
                    fmt2(ratio), "≥ 0.67 (≤ 1.5× COPY)"});
            verdict("P3", ratio >= 1 / 1.5, String.format(Locale.ROOT, "export %.2f× the COPY time vs ≤ 1.5×", ours / copy));
        }
        meta(d, r);
        d.append("| | value |\n|---|---|\n");
        for (Map.Entry<String, JsonElement> e : r.entrySet()) {
            if (!isMeta(e.getKey())) {
                d.append("| ").append(e.getKey()).append(" | ").append(val(e.getValue())).append(" |\n");
            }
        }
        d.append('\n');
        notes(d, "P3");
    }

    // ---- P3L (issue 33) ----

    private void p3l(StringBuilder d) throws IOException {
        d.append("## P3L export of 500 000 tickets (10× P3): ours vs psql \\copy\n\n");
        JsonObject r = figures.get("P3L");
        if (r == null || r.has("blocked") || !r.has("exportMedianS")) {
            missing("P3L export 500 000 tickets (s)", "(psql \\copy)", "≥ 0.67 (≤ 1.5× COPY)", d, r);
            return;
        }
        double ours = r.get("exportMedianS").getAsDouble();
        double copy = r.get("copyMedianS").getAsDouble();
        summary.add(new String[] {"P3L export 500 000 tickets (s)", fmt3(ours), fmt3(copy) + " (psql \\copy)",
                fmt2(copy / ours), "≥ 0.67 (≤ 1.5× COPY)"});
        double base = r.get("heapBaselineMiB").getAsDouble();
        double after = r.get("heapAfterDownloadMiB").getAsDouble();
        summary.add(new String[] {"P3L heap after 500k exports and a download (MiB)", fmt1(after),
                fmt1(base) + " (before them)", "—", "flat"});
        verdict("P3L", copy / ours >= 1 / 1.5 && after <= base * 1.1 + 16, String.format(Locale.ROOT,
                "export %.2f× the COPY time vs ≤ 1.5×; heap %.1f → %.1f MiB after the exports and the download"
                        + " (peak %.1f exporting, %.1f downloading a %d-byte CSV)", ours / copy, base, after,
                r.get("peakHeapDuringExportMiB").getAsDouble(), r.get("peakHeapDuringDownloadMiB").getAsDouble(),
                r.get("csvBytes").getAsLong()));
        meta(d, r);
        d.append("| | value |\n|---|---|\n");
        for (String k : r.keySet()) {
            if (!List.of("figure", "date", "nproc", "loadBefore", "loadAfter", "command", "commit", "uncommittedFiles",
                    "java", "node", "redis", "postgres", "memory").contains(k)) {
                d.append("| ").append(k).append(" | ").append(val(r.get(k))).append(" |\n");
            }
        }
        d.append('\n');
        notes(d, "P3L");
    }

    // ---- P4 ----

    private void p4(StringBuilder d) throws IOException {
        d.append("## P4 latency: 202 of the creation → claim (RUNNING)\n\n");
        JsonObject r = figures.get("P4");
        if (r == null || r.has("blocked")) {
            missing("P4 latency p50 (ms)", "—", "p50 ≤ 5 ms, p99 ≤ 20 ms", d, r);
            return;
        }
        double p50 = r.get("p50Ms").getAsDouble();
        double p99 = r.get("p99Ms").getAsDouble();
        String peer = r.has("peerP50Ms") ? fmt1(r.get("peerP50Ms").getAsDouble()) + " (db-scheduler, reference)" : "—";
        String ratio = r.has("peerP50Ms") ? fmt2(r.get("peerP50Ms").getAsDouble() / p50) : "—";
        summary.add(new String[] {"P4 latency p50 (ms; p99 in brackets)", fmt1(p50) + " (" + fmt1(p99) + ")", peer,
                ratio, "p50 ≤ 5 ms, p99 ≤ 20 ms"});
        verdict("P4", p50 <= 5 && p99 <= 20, String.format(Locale.ROOT, "p50 %.1f ms, p99 %.1f ms vs p50 ≤ 5 ms, p99 ≤ 20 ms",
                p50, p99));
        meta(d, r);
        d.append("| | value |\n|---|---|\n");
        for (Map.Entry<String, JsonElement> e : r.entrySet()) {
            if (!isMeta(e.getKey())) {
                d.append("| ").append(e.getKey()).append(" | ").append(val(e.getValue())).append(" |\n");
            }
        }
        d.append('\n');
        notes(d, "P4");
    }

    // ---- P5 ----

    private void p5(StringBuilder d) throws IOException {
        JsonObject r = figures.get("P5");
        d.append(String.format(Locale.ROOT, "## P5 sweeps on a %,d-row ledger%n%n",
                r == null ? 1_000_000L : r.get("ledgerRows").getAsLong()).replace(',', ' '));
        if (r == null) {
            missing("P5 dispatch / recovery sweep (ms)", "—", "< 10 ms, index scans only", d);
            return;
        }
        JsonObject disp = scenario(r, "dispatch", 20);
        JsonObject rec = scenario(r, "recovery", 20);
        double dm = disp.get("medianMs").getAsDouble();
        double rm = rec.get("medianMs").getAsDouble();
        boolean seq = false;
        for (JsonElement e : r.getAsJsonArray("scenarios")) {
            seq |= e.getAsJsonObject().get("seqScan").getAsBoolean();
        }
        String retention = "";
        for (JsonElement e : r.getAsJsonArray("scenarios")) {
            JsonObject o = e.getAsJsonObject();
            if (o.get("sweep").getAsString().equals("retention") && o.get("rows").getAsInt() == 20) {
                retention = " / " + fmt1(o.get("medianMs").getAsDouble());
            }
        }
        summary.add(new String[] {String.format(Locale.ROOT, "P5 dispatch / recovery%s sweep, 20 rows, %.0fM-row ledger (ms)",
                retention.isEmpty() ? "" : " / retention", r.get("ledgerRows").getAsLong() / 1e6),
                fmt1(dm) + " / " + fmt1(rm) + retention, "—", "—", "< 10 ms, index scans only"});
        verdict("P5", dm < 10 && rm < 10 && !seq, String.format(Locale.ROOT,
                "dispatch %.1f ms, recovery %.1f ms (20 rows each) vs < 10 ms; %s", dm, rm,
                seq ? "a plan has a Seq Scan" : "index scans only"));
        meta(d, r);
        d.append(String.format(Locale.ROOT, "Ledger: %d rows (%s), %s. %d timed runs per scenario after warm-up.%n%n",
                r.get("ledgerRows").getAsLong(), s(r, "ledgerSize"), s(r, "statusMix"), r.get("runs").getAsInt()));
        d.append("| sweep | rows it handles | median ms | p90 ms | min ms | max ms | Seq Scan? |\n|---|---|---|---|---|---|---|\n");
        for (JsonElement e : r.getAsJsonArray("scenarios")) {
            JsonObject o = e.getAsJsonObject();
            d.append("| ").append(s(o, "sweep")).append(" | ").append(o.get("rows").getAsInt()).append(" | ")
                    .append(fmt2(o.get("medianMs").getAsDouble())).append(" | ").append(fmt2(o.get("p90Ms").getAsDouble()))
                    .append(" | ").append(fmt2(o.get("minMs").getAsDouble())).append(" | ")
                    .append(fmt2(o.get("maxMs").getAsDouble())).append(" | ")
                    .append(o.get("seqScan").getAsBoolean() ? "yes" : "no").append(" |\n");
        }
        d.append('\n');
        notes(d, "P5");
        d.append("### Plans\n\n");
        for (JsonElement e : r.getAsJsonArray("scenarios")) {
            JsonObject o = e.getAsJsonObject();
            if (o.get("rows").getAsInt() != 20 && !s(o, "sweep").equals("reconcile")) {
                continue;
            }
            if (o.getAsJsonArray("plan").isEmpty()) {
                continue;
            }
            d.append("`").append(s(o, "sweep")).append("`, ").append(o.get("rows").getAsInt())
                    .append(" rows — `EXPLAIN (ANALYZE, BUFFERS)`:\n\n```\n");
            o.getAsJsonArray("plan").forEach(l -> d.append(l.getAsString()).append('\n'));
            d.append("```\n\n");
            if (!o.getAsJsonArray("perRowPlan").isEmpty()) {
                d.append("The `markDispatched` UPDATE of the batch:\n\n```\n");
                o.getAsJsonArray("perRowPlan").forEach(l -> d.append(l.getAsString()).append('\n'));
                d.append("```\n\n");
            }
        }
    }

    // ---- P7 ----

    private void p7(StringBuilder d) throws IOException {
        d.append("## P7 scale-out: 1, 2 and 3 instances on one PostgreSQL and one Redis (issue 17)\n\n");
        JsonObject r = figures.get("P7");
        if (r == null) {
            missing("P7 3 instances / 1 instance (tasks/s)", "—", "report and explain", d);
            return;
        }
        meta(d, r);
        double one = 0;
        double three = 0;
        d.append("| instances | tasks/s (median) | × one instance | server CPU ms per task |\n|---|---|---|---|\n");
        for (JsonElement e : r.getAsJsonArray("byInstances")) {
            JsonObject o = e.getAsJsonObject();
            int n = o.get("instances").getAsInt();
            double tps = o.get("tasksPerSecond").getAsDouble();
            if (n == 1) {
                one = tps;
            } else if (n == 3) {
                three = tps;
            }
            d.append("| ").append(n).append(" | ").append(String.format(Locale.ROOT, "%.0f", tps)).append(" | ")
                    .append(fmt2(o.get("ratioToOne").getAsDouble())).append(" | ")
                    .append(fmt2(o.get("serverCpuMsPerTask").getAsDouble())).append(" |\n");
        }
        d.append("\nRounds (ABBA over the instance count; every task checked: COMPLETED with exactly one claim):\n\n")
                .append("| instances | tasks | tasks/s | CPU s per instance | claims | not exactly once |\n|---|---|---|---|---|---|\n");
        for (JsonElement e : r.getAsJsonArray("rounds")) {
            JsonObject o = e.getAsJsonObject();
            d.append("| ").append(o.get("instances").getAsInt()).append(" | ").append(o.get("tasks").getAsInt())
                    .append(" | ").append(String.format(Locale.ROOT, "%.0f", o.get("tasksPerSecond").getAsDouble()))
                    .append(" | ").append(o.get("cpuSecondsPerInstance").toString()).append(" | ")
                    .append(o.get("claims").getAsLong()).append(" | ")
                    .append(o.get("tasksNotClaimedExactlyOnce").getAsLong()).append(" |\n");
        }
        d.append('\n');
        summary.add(new String[] {"P7 scale-out, 3 instances vs 1 (tasks/s)", String.format(Locale.ROOT, "%.0f", three),
                String.format(Locale.ROOT, "%.0f (1 instance)", one), fmt2(three / one), "report; 2 cores shared by all"});
        notes(d, "P7");
    }

    // ---- P8 ----

    /**
     * P8 (issue 30): B's reminders' created → claimed with A's flood against without it (a time: ratio
     * without/with, above 1 ahead; the target "within 2×" is with/without ≤ 2, i.e. ratio ≥ 0.50), A's exports/s
     * with B's reminders against alone (ratio with/alone, target ≥ 0.90), and ten flooding teams' shares of the
     * claims in a 30 s window against an equal share (target 0.80-1.20). A run where A's flood ended before B's last
     * reminder, or a team ran out of waiting exports within the window, proves nothing and is said to.
     */
    private void p8(StringBuilder d) throws IOException {
        d.append("## P8 fair share: one team's flood and another team's reminders (issue 30)\n\n");
        JsonObject r = figures.get("P8");
        if (r == null) {
            missing("P8 B's reminders p99 with A's flood vs without (ms)", "—", "with/without ≤ 2 (ratio ≥ 0.50)", d);
            return;
        }
        meta(d, r);
        double bAlone50 = r.get("bAloneP50Ms").getAsDouble();
        double bAlone99 = r.get("bAloneP99Ms").getAsDouble();
        double bFlood50 = r.get("bWithFloodP50Ms").getAsDouble();
        double bFlood99 = r.get("bWithFloodP99Ms").getAsDouble();
        double aAlone = r.get("aAloneTasksPerSecond").getAsDouble();
        double aWithB = r.get("aWithBTasksPerSecond").getAsDouble();
        JsonObject pair = r.getAsJsonObject("pair");
        JsonObject shares = r.getAsJsonObject("shares");
        double min = shares.get("minRatio").getAsDouble();
        double max = shares.get("maxRatio").getAsDouble();
        boolean outlasted = r.get("floodOutlastedB").getAsBoolean();
        boolean backlogged = shares.get("allBackloggedThroughWindow").getAsBoolean();
        d.append("Team A (bench-flood-1) submits ").append(fmt0(pair.get("flood").getAsInt())).append(" TEAM exports of ")
                .append(fmt0(pair.get("ticketsPerTeam").getAsInt())).append(" tickets each through the API (")
                .append(pair.get("clients").getAsInt()).append(" client loops); 5 s after its first POST team B submits ")
                .append(pair.get("reminders").getAsInt()).append(" reminders over 10 s. B's latency is created → claimed")
                .append(" (server clock); A's rate is its exports / (first created → last completed). Worker concurrency ")
                .append(r.get("workerConcurrency").getAsInt()).append(".\n\n")
                .append("| round | scenario | B p50 ms | B p90 ms | B p99 ms | B max ms | A exports/s | A created → last completed s |")
                .append(" A's own wait p50 ms | A's exports waiting at B's last | A's last claim after B's last s |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (JsonElement e : pair.getAsJsonArray("rounds")) {
            JsonObject o = e.getAsJsonObject();
            String scenario = switch (s(o, "scenario")) {
                case "A" -> "A alone";
                case "B" -> "B alone";
                default -> "A + B";
            };
            d.append("| ").append(opt(o, "round")).append(" | ").append(scenario);
            for (String k : List.of("bP50Ms", "bP90Ms", "bP99Ms", "bMaxMs", "aTasksPerSecond", "aSeconds", "aWaitP50Ms",
                    "aWaitingAtLastB", "aLastClaimAfterLastBSeconds")) {
                d.append(" | ").append(o.has(k) ? num(o.get(k).getAsDouble()) : "—");
            }
            d.append(" |\n");
        }
        d.append(String.format(Locale.ROOT, "%nMedians: B's p50 / p99 %.1f / %.1f ms alone, %.1f / %.1f ms with the flood"
                + " (%.2f× / %.2f×); A %.1f exports/s alone, %.1f with B (%.0f %%); A's own wait p50 with B %.0f ms (the"
                + " backlog B would wait behind in one FIFO list); the flood outlasted B's reminders in every A + B round: %b.%n%n",
                bAlone50, bAlone99, bFlood50, bFlood99, bFlood50 / bAlone50, bFlood99 / bAlone99, aAlone, aWithB,
                100 * aWithB / aAlone, r.get("aWaitP50Ms").getAsDouble(), outlasted));
        d.append("Ten teams flooding (bench-flood-1..10, ").append(fmt0(shares.get("perTeam").getAsInt()))
                .append(" exports each, interleaved, submitted in ").append(fmt1(shares.get("submitSeconds").getAsDouble()))
                .append(" s): claims in the ").append(shares.get("windowSeconds").getAsInt())
                .append(" s after the submission ended (").append(fmt1(shares.get("windowClaimsPerSecond").getAsDouble()))
                .append(" claims/s).\n\n| team | claims in the window | share / equal | exports not claimed at the window's end |\n")
                .append("|---|---|---|---|\n");
        JsonArray claims = shares.getAsJsonArray("claimsInWindow");
        for (int i = 0; i < claims.size(); i++) {
            d.append("| bench-flood-").append(i + 1).append(" | ").append(val(claims.get(i))).append(" | ")
                    .append(fmt2(shares.getAsJsonArray("shareRatios").get(i).getAsDouble())).append(" | ")
                    .append(val(shares.getAsJsonArray("notClaimedAtWindowEnd").get(i))).append(" |\n");
        }
        d.append("\nEvery team still had exports waiting at the window's end: ").append(backlogged)
                .append(". Afterwards the exports still waiting were cancelled through the API (")
                .append(opt(shares, "cancelledAfterWindow")).append(", to save the time of running them).\n\n");
        summary.add(new String[] {"P8 B's reminders p99 with A's flood vs without (ms; p50 in brackets)",
                fmt1(bFlood99) + " (" + fmt1(bFlood50) + ")", fmt1(bAlone99) + " (" + fmt1(bAlone50) + ") without the flood",
                fmt2(bAlone99 / bFlood99), "with/without ≤ 2 (ratio ≥ 0.50)"});
        summary.add(new String[] {"P8 A's throughput with B vs alone (exports/s)", fmt1(aWithB), fmt1(aAlone) + " (alone)",
                fmt2(aWithB / aAlone), "within 10 % (ratio ≥ 0.90)"});
        summary.add(new String[] {"P8 10 teams' share of slots, min/max vs equal", fmt2(min) + " / " + fmt2(max), "1.00 (equal)",
                fmt2(min), "±20 % (0.80-1.20)"});
        boolean met = bFlood50 <= 2 * bAlone50 && bFlood99 <= 2 * bAlone99 && aWithB >= 0.9 * aAlone && min >= 0.8 && max <= 1.2;
        String invalid = (outlasted ? "" : "; A's flood ended before B's last reminder: B's figure is not valid")
                + (backlogged ? "" : "; a team ran out of waiting exports within the window: the shares are not valid");
        verdict("P8", met && outlasted && backlogged, String.format(Locale.ROOT, "B's p50 / p99 %.1f / %.1f ms with A's flood"
                + " vs %.1f / %.1f ms without (%.2f× / %.2f×, target ≤ 2×), A's throughput %.0f %% of alone (target ≥ 90 %%),"
                + " ten teams' shares %.2f-%.2f of equal (target 0.80-1.20)%s", bFlood50, bFlood99, bAlone50, bAlone99,
                bFlood50 / bAlone50, bFlood99 / bAlone99, 100 * aWithB / aAlone, min, max, invalid));
        notes(d, "P8");
    }

    private static String opt(JsonObject o, String k) {
        return o.has(k) ? val(o.get(k)) : "—";
    }

    /** @return a count as an integer, anything else with one decimal */
    private static String num(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : fmt1(v);
    }

    private static JsonObject scenario(JsonObject r, String sweep, int rows) {
        for (JsonElement e : r.getAsJsonArray("scenarios")) {
            JsonObject o = e.getAsJsonObject();
            if (o.get("sweep").getAsString().equals(sweep) && o.get("rows").getAsInt() == rows) {
                return o;
            }
        }
        throw new IllegalStateException("no scenario " + sweep + "/" + rows);
    }

    // ---- plumbing ----

    private void missing(String figure, String peer, String target, StringBuilder d) throws IOException {
        missing(figure, peer, target, d, null);
    }

    private void missing(String figure, String peer, String target, StringBuilder d, JsonObject r) throws IOException {
        String why = r == null ? "not run yet" : "not measured: " + s(r, "blocked");
        summary.add(new String[] {figure, why, peer, "—", target});
        verdict(figure.substring(0, 2), false, why);
        if (r != null) {
            meta(d, r);
            d.append("**Not measured:** ").append(s(r, "blocked")).append("\n\n");
        } else {
            d.append("Not run yet.\n\n");
        }
        notes(d, figure.substring(0, 2));
    }

    /**
     * Records the line "P&lt;n&gt; meets / is BELOW its target: …" of a figure; a run whose 1-minute load average
     * before it was over 2 says so (issue 16: such a run is marked and not quoted).
     */
    private void verdict(String figure, boolean ok, String text) {
        String load = loadBefore(figures.get(figure));
        String busy = "";
        if (load != null) {
            try {
                if (Double.parseDouble(load) > 2) {
                    busy = " — load " + load + " before this run, over 2: marked, not to be quoted";
                }
            } catch (NumberFormatException e) {
                busy = " — load before this run unreadable (" + load + ")";
            }
        }
        verdicts.add(figure + (ok ? " meets its target: " : " is BELOW its target: ") + text
                + (ok ? "" : " (see the analysis under " + figure + ")") + busy);
    }

    /** @return the 1-minute load average before the run of {@code r}, as recorded, or null when not recorded */
    private static String loadBefore(JsonObject r) {
        return r != null && r.has("loadBefore") ? s(r, "loadBefore").split(" ")[0] : null;
    }

    private void notes(StringBuilder d, String figure) throws IOException {
        Path p = results.getParent().resolve("notes").resolve(figure + ".md");
        if (Files.exists(p)) {
            d.append(Files.readString(p).strip()).append("\n\n");
        }
    }

    private static void meta(StringBuilder d, JsonObject r) {
        d.append("Run ").append(s(r, "date")).append(" on ").append(r.get("nproc").getAsInt()).append(" cores (")
                .append(s(r, "memory")).append("), load average ").append(s(r, "loadBefore")).append(" before, ")
                .append(s(r, "loadAfter")).append(" after. Command: `").append(s(r, "command")).append("`. Commit ")
                .append(s(r, "commit"));
        int dirty = r.get("uncommittedFiles").getAsInt();
        d.append(dirty > 0 ? " + " + dirty + " uncommitted files under src/ (others' work in progress)" : "")
                .append(". ").append(s(r, "java")).append("; Node ").append(s(r, "node")).append("; Redis ")
                .append(s(r, "redis")).append("; PostgreSQL ").append(s(r, "postgres")).append(".\n\n");
    }

    private static boolean isMeta(String k) {
        return Arrays.asList("figure", "date", "nproc", "loadBefore", "loadAfter", "command", "commit",
                "uncommittedFiles", "java", "node", "redis", "postgres", "memory").contains(k);
    }

    private static List<String> union(JsonObject a, JsonObject b) {
        List<String> keys = new ArrayList<>(a.keySet());
        for (String k : b.keySet()) {
            if (!keys.contains(k)) {
                keys.add(k);
            }
        }
        return keys;
    }

    private static String val(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return "";
        }
        if (e.isJsonPrimitive()) {
            if (e.getAsJsonPrimitive().isNumber()) {
                double v = e.getAsDouble();
                return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : fmt3(v);
            }
            return e.getAsString().replace("|", "\\|");
        }
        return "`" + e.toString().replace("|", "\\|") + "`";
    }

    private static String s(JsonObject o, String k) {
        return o.has(k) && !o.get(k).isJsonNull() ? o.get(k).getAsString() : "";
    }

    static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (a.length == 0) {
            return Double.NaN;
        }
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    static String fmt0(double v) {
        return String.format(Locale.ROOT, "%,.0f", v).replace(',', ' ');
    }

    static String fmt1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String fmt2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    static String fmt3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
