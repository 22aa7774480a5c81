package dev.loompool.jdbc.fuzz;

import dev.loompool.jdbc.TestDatabase;
import dev.loompool.jdbc.internal.sql.FuzzTarget;
import dev.loompool.jdbc.internal.sql.SqlDialect;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * A driver and server the pool's sequence fuzzer runs on: pgjdbc on PostgreSQL, MariaDB
 * Connector/J and MySQL Connector/J on the MariaDB server. Each has schema objects of its own
 * (named {@code wt38d_<short>_…}, so that the targets may run side by side in separate JVMs and
 * drop what they made), and a plain connection of the same URL is the reference.
 */
enum SeqTarget {
    PGJDBC(TestDatabase.POSTGRES, SqlDialect.POSTGRES, FuzzTarget.POSTGRES_EXTENDED, null, "pg", "socketTimeout=15"),
    MARIADB_CJ(TestDatabase.MARIADB, SqlDialect.MYSQL, FuzzTarget.MARIADB, "jdbc:mariadb:", "mdb",
            "allowMultiQueries=true&socketTimeout=15000"),
    MYSQL_CJ(TestDatabase.MARIADB, SqlDialect.MYSQL, FuzzTarget.MARIADB, "jdbc:mysql:", "my",
            "allowMultiQueries=true&socketTimeout=15000");

    final TestDatabase database;
    final SqlDialect dialect;
    /** The classifier fuzzer's target whose schema objects FuzzTexts' texts name. */
    final FuzzTarget texts;
    private final String scheme;
    private final String options;
    /** The prefix of this target's own objects: {@code {p}} in a step's SQL. */
    final String prefix;

    SeqTarget(TestDatabase database, SqlDialect dialect, FuzzTarget texts, String scheme, String shortName, String options) {
        this.database = database;
        this.dialect = dialect;
        this.texts = texts;
        this.scheme = scheme;
        this.options = options;
        this.prefix = "wt38d_" + shortName + "_";
    }

    boolean postgres() {
        return dialect == SqlDialect.POSTGRES;
    }

    String url() {
        String url = database.url();
        if (scheme != null) {
            url = url.replaceFirst("^jdbc:[a-z]+:", scheme);
        }
        return url + (url.contains("?") ? "&" : "?") + options;
    }

    /** A plain connection of the pool's URL, from open to close: the reference. */
    Connection plain() throws SQLException {
        return DriverManager.getConnection(url());
    }

    /**
     * The user locks this target's texts take (MariaDB: FuzzTexts' names with the target's prefix,
     * so that targets and the classifier fuzzer running side by side do not take each other's).
     */
    List<String> locks() {
        return postgres() ? List.of() : List.of(prefix + "fz_lock", prefix + "fz_lock2");
    }

    /** The other catalog (MariaDB: a database) or schemas (PostgreSQL) a step may move to. */
    List<String> catalogs() {
        return postgres() ? List.of("test") : List.of("test", prefix + "other");
    }

    List<String> schemas() {
        return postgres() ? List.of("public", prefix + "s1", prefix + "s2") : List.of("test", prefix + "other");
    }

    /**
     * The objects the steps use: another schema or database; a type of one name defined
     * differently in two schemas and in public (pgjdbc caches a type's oid by name); a sequence;
     * functions and procedures (one writes into the table named by its argument, one changes the
     * session, one reads the sequence's current value); the table B writes into to see whether
     * its transactions are read-only.
     */
    void prepare() throws SQLException {
        texts.prepare();
        String p = prefix;
        String[] ddl = postgres() ? new String[] {
            "CREATE SCHEMA IF NOT EXISTS " + p + "s1",
            "CREATE SCHEMA IF NOT EXISTS " + p + "s2",
            "DROP TYPE IF EXISTS public." + p + "t, " + p + "s1." + p + "t, " + p + "s2." + p + "t",
            "CREATE TYPE public." + p + "t AS ENUM ('a', 'public')",
            "CREATE TYPE " + p + "s1." + p + "t AS ENUM ('a', 's1')",
            "CREATE TYPE " + p + "s2." + p + "t AS ENUM ('a', 's2')",
            "CREATE SEQUENCE IF NOT EXISTS " + p + "seq",
            "CREATE TABLE IF NOT EXISTS " + p + "probe (id int)",
            "CREATE OR REPLACE FUNCTION " + p + "fn(i int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$BEGIN RETURN i + 1; END$$",
            "CREATE OR REPLACE FUNCTION " + p + "ins(tbl text, i int) RETURNS int LANGUAGE plpgsql VOLATILE"
                    + " AS $$BEGIN EXECUTE format('INSERT INTO %I VALUES ($1, ''fn'')', tbl) USING i; RETURN i; END$$",
            "CREATE OR REPLACE FUNCTION " + p + "setfn(v text) RETURNS text LANGUAGE plpgsql VOLATILE"
                    + " AS $$BEGIN PERFORM set_config('fz.x', v, false); RETURN v; END$$",
            "CREATE OR REPLACE FUNCTION " + p + "currval() RETURNS bigint LANGUAGE sql VOLATILE"
                    + " AS $$SELECT currval('" + p + "seq')$$",
        } : new String[] {
            "CREATE DATABASE IF NOT EXISTS " + p + "other",
            "CREATE SEQUENCE IF NOT EXISTS " + p + "seq",
            "CREATE TABLE IF NOT EXISTS " + p + "probe (id int) ENGINE=InnoDB",
            "CREATE OR REPLACE FUNCTION " + p + "fn(i int) RETURNS int NOT DETERMINISTIC RETURN i + 1",
            "CREATE OR REPLACE PROCEDURE " + p + "proc(IN i int, OUT o int) BEGIN SET o = i + 1; END",
            "CREATE OR REPLACE PROCEDURE " + p + "ins(IN tbl varchar(64), IN i int)"
                    + " BEGIN EXECUTE IMMEDIATE CONCAT('INSERT INTO ', tbl, ' VALUES (', i, ', ''proc'')'); END",
            "CREATE OR REPLACE PROCEDURE " + p + "setproc(IN i int) BEGIN SET @fz_a = i; END",
        };
        try (Connection c = database.admin(); Statement s = c.createStatement()) {
            for (String sql : ddl) {
                s.execute(sql);
            }
        }
    }

    /** Drops what {@link #prepare} made for this target (FuzzTexts' objects are shared, and stay). */
    void drop() throws SQLException {
        String p = prefix;
        String[] ddl = postgres() ? new String[] {
            "DROP SCHEMA IF EXISTS " + p + "s1 CASCADE", "DROP SCHEMA IF EXISTS " + p + "s2 CASCADE",
            "DROP TYPE IF EXISTS public." + p + "t", "DROP SEQUENCE IF EXISTS " + p + "seq",
            "DROP TABLE IF EXISTS " + p + "probe", "DROP FUNCTION IF EXISTS " + p + "fn(int)",
            "DROP FUNCTION IF EXISTS " + p + "ins(text, int)", "DROP FUNCTION IF EXISTS " + p + "setfn(text)",
            "DROP FUNCTION IF EXISTS " + p + "currval()",
        } : new String[] {
            "DROP DATABASE IF EXISTS " + p + "other", "DROP SEQUENCE IF EXISTS " + p + "seq",
            "DROP TABLE IF EXISTS " + p + "probe", "DROP FUNCTION IF EXISTS " + p + "fn",
            "DROP PROCEDURE IF EXISTS " + p + "proc", "DROP PROCEDURE IF EXISTS " + p + "ins",
            "DROP PROCEDURE IF EXISTS " + p + "setproc",
        };
        try (Connection c = database.admin(); Statement s = c.createStatement()) {
            for (String sql : ddl) {
                s.execute(sql);
            }
        }
    }
}
