package dev.loompool.jdbc.internal;

import dev.loompool.jdbc.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A real server and driver setting the differential fuzzer runs its texts on, each on a fresh plain
 * connection (no pool, autocommit on). PostgreSQL twice: pgjdbc's simple query mode sends a
 * multi-statement text as one string, its default extended mode splits it on the semicolons it
 * sees itself, and the two readings differ.
 */
enum FuzzTarget {
    POSTGRES_SIMPLE(TestDatabase.POSTGRES, SqlDialect.POSTGRES, "preferQueryMode=simple"),
    POSTGRES_EXTENDED(TestDatabase.POSTGRES, SqlDialect.POSTGRES, "preferQueryMode=extended"),
    MARIADB(TestDatabase.MARIADB, SqlDialect.MYSQL, "allowMultiQueries=true");

    /** The one table the generated texts read and write; the name keeps clear of other tests' tables. */
    static final String TABLE = "loompool_fuzz";

    final TestDatabase database;
    final SqlDialect dialect;
    private final String option;

    FuzzTarget(TestDatabase database, SqlDialect dialect, String option) {
        this.database = database;
        this.dialect = dialect;
        this.option = option;
    }

    /** A fresh plain connection, autocommit on; socket timeouts so a stuck text cannot hang the build. */
    Connection open() throws SQLException {
        String url = database.url();
        String timeouts = dialect == SqlDialect.POSTGRES ? "socketTimeout=30" : "socketTimeout=30000";
        Connection c = DriverManager.getConnection(url + (url.contains("?") ? "&" : "?") + option + "&" + timeouts);
        c.setAutoCommit(true);
        return c;
    }

    /** The table the texts use; made once, never dropped (other runs may be using it). */
    void prepare() throws SQLException {
        try (Connection c = open(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (id int, v varchar(200))");
        }
    }

    /**
     * The classifier as the pool builds it for this server (ConnectionFactory.learn): the dialect,
     * then the function table read from this server's catalog, exactly as the pool reads it.
     */
    SqlClassifier classifier() throws SQLException {
        SqlClassifier classifier = new SqlClassifier(dialect);
        try (Connection c = open()) {
            classifier.useFunctions(SqlFunctions.read(c, dialect), System.nanoTime());
        }
        return classifier;
    }
}
