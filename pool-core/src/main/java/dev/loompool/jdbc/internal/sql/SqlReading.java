package dev.loompool.jdbc.internal.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * One way the server may read a text: the choices the pool cannot make from the text alone.
 * {@code versions} lists the text's versioned comment kinds ({@code "50700"}, {@code "M100500"},
 * {@code "M"}); bit {@code i} of {@code run} says whether kind {@code i} runs in this reading.
 */
record SqlReading(boolean backslashStrings, List<String> versions, int run) {

    /** More versioned comment kinds than this in one text: not read every way, the text pins. */
    static final int MAX_VERSIONS = 3;

    boolean runs(String version) {
        int i = versions.indexOf(version);
        return i < 0 || (run & (1 << i)) != 0;
    }

    /**
     * The readings a text has in {@code dialect}, the usual first: both backslash rules if it has a
     * backslash, and every combination of its versioned comment kinds running or not (MySQL; and
     * OTHER, which reads as much as it can as SQL); null if it has more than {@link #MAX_VERSIONS}.
     */
    static SqlReading[] all(String sql, SqlDialect dialect) {
        boolean usual = dialect == SqlDialect.MYSQL;
        boolean backslash = sql.indexOf('\\') >= 0;
        List<String> versions = dialect == SqlDialect.POSTGRES ? List.of() : versions(sql);
        if (versions.size() > MAX_VERSIONS) {
            return null;
        }
        SqlReading[] r = new SqlReading[(backslash ? 2 : 1) << versions.size()];
        int n = 0;
        for (int run = (1 << versions.size()) - 1; run >= 0; run--) {
            r[n++] = new SqlReading(usual, versions, run);
            if (backslash) {
                r[n++] = new SqlReading(!usual, versions, run);
            }
        }
        return r;
    }

    /** The versioned comment kinds the text may hold, found in the raw text (inside literals too: more readings, never fewer). */
    private static List<String> versions(String sql) {
        List<String> versions = new ArrayList<>(0);
        for (int i = sql.indexOf("/*"); i >= 0; i = sql.indexOf("/*", i + 2)) {
            String v = versionAt(sql, i);
            if (v != null && !versions.contains(v)) {
                versions.add(v);
            }
        }
        return versions;
    }

    /**
     * The kind of the comment opening at {@code i}: its version, {@code M} before MariaDB's; null
     * for a plain comment, and for {@code /*!} without a version, which every server runs.
     */
    static String versionAt(String sql, int i) {
        int n = sql.length();
        boolean mariaDb = i + 3 < n && (sql.charAt(i + 2) | 0x20) == 'm' && sql.charAt(i + 3) == '!';
        if (!mariaDb && !(i + 2 < n && sql.charAt(i + 2) == '!')) {
            return null;
        }
        int body = mariaDb ? i + 4 : i + 3;
        int digits = body;
        while (digits < n && sql.charAt(digits) >= '0' && sql.charAt(digits) <= '9') {
            digits++;
        }
        if (digits == body && !mariaDb) {
            return null;
        }
        return (mariaDb ? "M" : "") + sql.substring(body, digits);
    }
}
