package dev.loompool.jdbc.internal.sql;

import java.util.Locale;

/**
 * The lexical rules the SQL classifier reads a text by. They differ where it matters for finding
 * statements: MySQL runs {@code /*! … *}{@code /} comments and escapes quotes with backslashes,
 * PostgreSQL nests comments and has dollar quotes. {@link #OTHER} reads a text so that as much of
 * it as possible counts as SQL, since a missed statement is worse than an extra pin.
 */
public enum SqlDialect {
    POSTGRES,
    MYSQL,
    OTHER;

    public static SqlDialect of(String databaseProductName) {
        String p = databaseProductName == null ? "" : databaseProductName.toLowerCase(Locale.ROOT);
        if (p.contains("postgres")) {
            return POSTGRES;
        }
        if (p.contains("mysql") || p.contains("mariadb")) {
            return MYSQL;
        }
        return OTHER;
    }
}
