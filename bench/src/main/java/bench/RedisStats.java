package bench;

import java.util.HashMap;
import java.util.Map;

import redis.clients.jedis.UnifiedJedis;

/**
 * A snapshot of Redis's INFO commandstats and CPU counters, so that a phase can report its round trips
 * and the server CPU it cost per job. Counters are server-wide: anything else using the same Redis during
 * the phase is counted too (docs/benchmarks.md says so).
 */
final class RedisStats {

    /** calls per command name (lower case, e.g. "evalsha", "hset"); commands run by scripts count too */
    final Map<String, Long> calls = new HashMap<>();
    /** used_cpu_user + used_cpu_sys in microseconds */
    final long cpuMicros;

    private RedisStats(Map<String, Long> calls, long cpuMicros) {
        this.calls.putAll(calls);
        this.cpuMicros = cpuMicros;
    }

    static RedisStats take(UnifiedJedis redis) {
        Map<String, Long> calls = new HashMap<>();
        for (String line : redis.info("commandstats").split("\r?\n")) {
            // cmdstat_evalsha:calls=123,usec=456,...
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                int i = line.indexOf("calls=") + "calls=".length();
                int j = line.indexOf(',', i);
                calls.put(name, Long.parseLong(line.substring(i, j)));
            }
        }
        double cpu = 0;
        for (String line : redis.info("cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return new RedisStats(calls, Math.round(cpu * 1e6));
    }

    /** @return a JSON object: per-job calls of each command that changed, and Redis CPU µs per job */
    static String perJob(RedisStats before, RedisStats after, long jobs) {
        StringBuilder sb = new StringBuilder("{\"redisCpuUsPerJob\":")
                .append(String.format(java.util.Locale.ROOT, "%.1f", (after.cpuMicros - before.cpuMicros) / (double) jobs))
                .append(",\"callsPerJob\":{");
        boolean first = true;
        for (Map.Entry<String, Long> e : new java.util.TreeMap<>(after.calls).entrySet()) {
            long d = e.getValue() - before.calls.getOrDefault(e.getKey(), 0L);
            if (d <= 0 || e.getKey().equals("info")) {
                continue;
            }
            sb.append(first ? "" : ",").append('"').append(e.getKey()).append("\":")
                    .append(String.format(java.util.Locale.ROOT, "%.2f", d / (double) jobs));
            first = false;
        }
        return sb.append("}}").toString();
    }
}
