package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code setReadOnly} answers as the driver does without the pool (issue 38, item 3): in the middle
 * of a transaction pgjdbc refuses it (25001, "Cannot change transaction read-only property in the
 * middle of a transaction") whatever the value, the same value included; the MariaDB and MySQL
 * Connector/Js answer their own way. {@code setTransactionIsolation} likewise (pgjdbc: "Cannot
 * change transaction isolation level in the middle of a transaction", the same level included).
 * A calls it in its transaction, then commits: what does A commit, what does the getter say, and
 * what does B see?
 */
class ReadOnlyCallsTest extends OnRealDatabases {

    /** Where A stands when it calls setReadOnly. */
    enum Where {
        /** autocommit off, a statement ran: a transaction is under way. */
        AUTOCOMMIT_OFF_AFTER_A_STATEMENT,
        /** autocommit on, SQL BEGIN and a statement. */
        SQL_BEGIN_AFTER_A_STATEMENT,
        /** autocommit off, no statement yet. */
        AUTOCOMMIT_OFF_BEFORE_ANY_STATEMENT,
        /** autocommit on, nothing under way: through the pool, nothing is bound. */
        NOTHING_UNDER_WAY
    }

    /** The setter A calls: with true, a change from the default; with false, the default again. */
    enum Setter {
        READ_ONLY, ISOLATION;

        void set(Connection c, boolean change, int defaultLevel) throws SQLException {
            if (this == READ_ONLY) {
                c.setReadOnly(change);
            } else {
                c.setTransactionIsolation(change ? Connection.TRANSACTION_SERIALIZABLE : defaultLevel);
            }
        }

        String get(Connection c) throws SQLException {
            return this == READ_ONLY ? "isReadOnly " + c.isReadOnly() : "isolation " + c.getTransactionIsolation();
        }
    }

    /** What A sees: the call's outcome and the getter after it; A's insert then commits. */
    private static String outcome(Connection c, Where where, Setter setter, boolean readOnly, String insert) throws SQLException {
        int defaultLevel = c.getTransactionIsolation();
        switch (where) {
            case AUTOCOMMIT_OFF_AFTER_A_STATEMENT -> {
                c.setAutoCommit(false);
                run(c, insert);
            }
            case SQL_BEGIN_AFTER_A_STATEMENT -> {
                run(c, "BEGIN");
                run(c, insert);
            }
            case AUTOCOMMIT_OFF_BEFORE_ANY_STATEMENT -> c.setAutoCommit(false);
            case NOTHING_UNDER_WAY -> run(c, insert);
        }
        String call;
        try {
            setter.set(c, readOnly, defaultLevel);
            call = "ok";
        } catch (SQLException e) {
            call = "refused " + e.getSQLState();
        }
        String seen = call + ", " + setter.get(c);
        if (where == Where.AUTOCOMMIT_OFF_BEFORE_ANY_STATEMENT) {
            setter.set(c, false, defaultLevel);
            run(c, insert);
        }
        if (where == Where.SQL_BEGIN_AFTER_A_STATEMENT) {
            run(c, "COMMIT");
        } else if (!c.getAutoCommit()) {
            c.commit();
        }
        return seen;
    }

    private void compare(String url, LoomPoolDataSource ds, String table) throws SQLException {
        int v = 0;
        for (Setter setter : Setter.values()) {
        for (Where where : Where.values()) {
            for (boolean readOnly : new boolean[] {true, false}) {
                v++;
                String plain;
                try (Connection c = DriverManager.getConnection(url)) {
                    plain = outcome(c, where, setter, readOnly, "INSERT INTO " + table + " VALUES (" + (-v) + ")");
                }
                String pooled;
                try (Connection a = ds.getConnection()) {
                    pooled = outcome(a, where, setter, readOnly, "INSERT INTO " + table + " VALUES (" + v + ")");
                }
                assertThat(pooled).as("loompool answers as the plain driver (" + url.substring(0, 16) + "), " + where
                        + ", " + setter + " changed " + readOnly).isEqualTo(plain);
                try (Connection b = ds.getConnection()) {
                    assertThat(num(b, "SELECT count(*) FROM " + table + " WHERE id = " + v)).as("A's insert, as B sees it")
                            .isEqualTo(1);
                    assertThat(b.isReadOnly()).as("B gets the pool's default").isFalse();
                    try (Connection fresh = DriverManager.getConnection(url)) {
                        assertThat(b.getTransactionIsolation()).as("B's level").isEqualTo(fresh.getTransactionIsolation());
                    }
                }
            }
        }
        }
    }

    @Test
    void postgresSetReadOnlyInATransactionIsRefusedAsByPgjdbc() throws SQLException {
        String t = "ro_" + tag;
        pgAdmin("CREATE TABLE " + t + " (id int)");
        pgCleanup.add("DROP TABLE IF EXISTS " + t);
        compare(TestDatabase.POSTGRES.url(), pg(1), t);
    }

    @ParameterizedTest
    @EnumSource(Connector.class)
    void mariaDbSetReadOnlyInATransactionAnswersAsEachConnectorJ(Connector connector) throws SQLException {
        String t = "ro_" + tag + connector.ordinal();
        mariaAdmin("CREATE TABLE " + t + " (id int)");
        mariaCleanup.add("DROP TABLE IF EXISTS " + t);
        compare(connector.url(null), maria(connector, 1, null), t);
    }
}
