package dev.loompool.jdbc;

import static dev.loompool.jdbc.BorrowerScenarios.*;
import java.sql.SQLException;

/**
 * The PostgreSQL objects the write-path tests share (DESIGN.md §4, "Per-statement values"): a serial
 * table, a second one, a sequence, and two functions that read lastval() by dynamic SQL the catalog
 * cannot read, one VOLATILE and one STABLE.
 */
abstract class PostgresWritePathScenarios extends OnRealDatabases {

    final String seq = table + "_sq";
    /** A volatile function that reads lastval() by dynamic SQL the catalog cannot read: the pool must discard first. */
    final String peekVolatile = table + "_peekv()";
    /** The same, declared STABLE. */
    final String peekStable = table + "_peeks()";

    /** {@code table} (id serial, v), {@code table_o} (id serial, v), a sequence and the peek functions; before the pool starts. */
    void pgObjects() throws SQLException {
        pgCleanup.add("DROP TABLE IF EXISTS " + table + ", " + table + "_o CASCADE");
        pgCleanup.add("DROP FUNCTION IF EXISTS " + peekVolatile + ", " + peekStable + " CASCADE");
        pgCleanup.add("DROP SEQUENCE IF EXISTS " + seq + " CASCADE");
        pgAdmin("CREATE TABLE " + table + " (id serial PRIMARY KEY, v int)");
        pgAdmin("CREATE TABLE " + table + "_o (id serial PRIMARY KEY, v int)");
        pgAdmin("CREATE SEQUENCE " + seq);
        for (String f : new String[] {peekVolatile + " RETURNS bigint LANGUAGE plpgsql VOLATILE",
            peekStable + " RETURNS bigint LANGUAGE plpgsql STABLE"}) {
            pgAdmin("CREATE FUNCTION " + f + " AS $f$ DECLARE v bigint; BEGIN EXECUTE 'SELECT last' || 'val()' INTO v;"
                    + " RETURN v; END $f$");
        }
    }
}
