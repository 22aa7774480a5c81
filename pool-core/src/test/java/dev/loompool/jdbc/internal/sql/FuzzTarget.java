package dev.loompool.jdbc.internal.sql;

import dev.loompool.jdbc.internal.driver.FunctionCatalog;
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
public enum FuzzTarget {
    POSTGRES_SIMPLE(TestDatabase.POSTGRES, SqlDialect.POSTGRES, "preferQueryMode=simple"),
    POSTGRES_EXTENDED(TestDatabase.POSTGRES, SqlDialect.POSTGRES, "preferQueryMode=extended"),
    MARIADB(TestDatabase.MARIADB, SqlDialect.MYSQL, "allowMultiQueries=true");

    /** The one table the generated texts read and write; the name keeps clear of other tests' tables. */
    public static final String TABLE = "loompool_fuzz";

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

    /**
     * Schema objects that run session-changing code when a plain query or DML touches them,
     * without naming a function: a view, a column default, a check constraint, a domain's check,
     * a cast (PostgreSQL); a view over GET_LOCK and one over a stored function (MariaDB).
     */
    private static final String[] POSTGRES_OBJECTS = {
        "CREATE OR REPLACE VIEW loompool_fuzz_view AS SELECT set_config('fz.z', 'from a view', false) AS s",
        "CREATE TABLE IF NOT EXISTS loompool_fuzz_default (id int, s text DEFAULT set_config('fz.z', 'from a default', false))",
        "CREATE TABLE IF NOT EXISTS loompool_fuzz_check (id int CHECK (set_config('fz.z', 'from a check', false) IS NOT NULL))",
        "DO $$BEGIN CREATE DOMAIN loompool_fuzz_domain AS int CHECK (set_config('fz.z', 'from a domain', false) IS NOT NULL);"
                + " EXCEPTION WHEN duplicate_object THEN NULL; END$$",
        "DO $$BEGIN CREATE TYPE loompool_fuzz_type AS (v text); EXCEPTION WHEN duplicate_object THEN NULL; END$$",
        "CREATE OR REPLACE FUNCTION loompool_fuzz_cast(text) RETURNS loompool_fuzz_type LANGUAGE sql VOLATILE"
                + " AS $$SELECT ROW(set_config('fz.z', 'from a cast', false))::loompool_fuzz_type$$",
        "DO $$BEGIN CREATE CAST (text AS loompool_fuzz_type) WITH FUNCTION loompool_fuzz_cast(text);"
                + " EXCEPTION WHEN duplicate_object THEN NULL; END$$",
    };

    private static final String[] MARIADB_OBJECTS = {
        "CREATE OR REPLACE VIEW loompool_fuzz_view AS SELECT GET_LOCK('fz_lock', 0) AS l",
        "CREATE OR REPLACE FUNCTION loompool_fuzz_f() RETURNS int NOT DETERMINISTIC BEGIN SET @fz_a = 42; RETURN 1; END",
        "CREATE OR REPLACE VIEW loompool_fuzz_fview AS SELECT loompool_fuzz_f() AS f",
    };

    /**
     * The table the texts use and the schema objects above; made once per run (the two
     * PostgreSQL targets share a database), never dropped (other runs may be using them).
     */
    public void prepare() throws SQLException {
        synchronized (FuzzTarget.class) { // CREATE OR REPLACE side by side fails ("tuple concurrently updated")
            try (Connection c = open(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (id int, v varchar(200))");
                for (String ddl : dialect == SqlDialect.POSTGRES ? POSTGRES_OBJECTS : MARIADB_OBJECTS) {
                    s.execute(ddl);
                }
            }
        }
    }

    /**
     * The classifier as the pool builds it for this server (ConnectionFactory.learn): the dialect,
     * then the function table read from this server's catalog, exactly as the pool reads it.
     */
    SqlClassifier classifier() throws SQLException {
        SqlClassifier classifier = new SqlClassifier(dialect);
        try (Connection c = open()) {
            classifier.useFunctions(FunctionCatalog.read(c, dialect), System.nanoTime());
        }
        return classifier;
    }
}
