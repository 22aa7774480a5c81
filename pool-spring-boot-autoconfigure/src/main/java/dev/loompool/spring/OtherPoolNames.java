package dev.loompool.spring;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The names other pools give loompool's settings, as a team moving from one writes them under
 * {@code loompool.} ({@code LOOMPOOL_MAXIMUM_POOL_SIZE}, {@code loompool.max-active}): none is a
 * key, and each names loompool's key for the same job in the unknown-key report, even where it is
 * far from that key's own name. Compared in Boot's uniform form (lower case, no separators).
 */
final class OtherPoolNames {

    /** The uniform name, and loompool's key. */
    private static final Map<String, String> MEANT = meant();

    private OtherPoolNames() {
    }

    private static Map<String, String> meant() {
        Map<String, String> meant = new LinkedHashMap<>();
        HikariKeys.EQUIVALENT.forEach((hikari, loompool) -> {
            meant.put(uniform(hikari), loompool);
            meant.put("hikari" + uniform(hikari), loompool); // the hikari group moved under loompool whole
        });
        // Tomcat JDBC, Commons DBCP 2, c3p0, Vibur, Agroal, and the plain words for them.
        for (String name : new String[] {"max-active", "max-total", "max-pool-size", "pool-size", "max-connections",
                "max-idle"}) {
            meant.putIfAbsent(uniform(name), "loompool.max-size");
        }
        for (String name : new String[] {"min-idle", "min-pool-size", "initial-size", "min-connections"}) {
            meant.putIfAbsent(uniform(name), "loompool.min-size");
        }
        for (String name : new String[] {"max-wait", "max-wait-millis", "checkout-timeout", "acquisition-timeout",
                "connection-timeout"}) {
            meant.putIfAbsent(uniform(name), "loompool.acquire-timeout");
        }
        for (String name : new String[] {"max-age", "max-conn-lifetime-millis", "max-connection-age"}) {
            meant.putIfAbsent(uniform(name), "loompool.max-lifetime");
        }
        for (String name : new String[] {"init-sql", "connection-init-sqls", "initial-sql"}) {
            meant.putIfAbsent(uniform(name), "loompool.connection-init-sql");
        }
        return Collections.unmodifiableMap(meant); // in order: of two names as near, the first wins
    }

    private static String uniform(String dashed) {
        return dashed.replace("-", "").replace(".", "");
    }

    /**
     * loompool's key for a name another pool uses, written exactly or within a typo of it (the
     * nearest wins), or null.
     */
    static String keyFor(String writtenUniform) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (Map.Entry<String, String> e : MEANT.entrySet()) {
            int distance = EditDistance.between(writtenUniform, e.getKey());
            if (distance <= Math.max(2, e.getKey().length() / 3) && distance < bestDistance) {
                bestDistance = distance;
                best = e.getValue();
            }
        }
        return best;
    }
}
