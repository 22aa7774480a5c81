package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.WritePathProbes.*;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The write path on MariaDB, through both Connector/Js (DESIGN.md §4, "Per-statement values";
 * {@link PostgresGeneratedIdStaysWithItsBorrowerTest} has the PostgreSQL side and says what is
 * asked): B must see what a plain driver connection of its own shows, or the pool's refusal, never
 * A's {@code LAST_INSERT_ID()}, {@code @@identity} or {@code PREVIOUS VALUE FOR}: not after an
 * INSERT that sets no id or another sequence's {@code NEXT VALUE FOR}, not through a column default
 * or a trigger inside B's INSERT, not after an upsert or a keyed batch of A's.
 */
class MariaDbGeneratedIdStaysWithItsBorrowerTest extends OnRealDatabases {

    /** Ids for explicit-id INSERTs: negative, so that no serial or AUTO_INCREMENT of these tests reaches them or moves past them. */
    final java.util.concurrent.atomic.AtomicLong explicitIds = new java.util.concurrent.atomic.AtomicLong();

    /** B's statement that the pool counts as leaving a value, then B's read of LAST_INSERT_ID() or @@identity. */
    private Steps mariaBReads(String how) {
        return b -> switch (how) {
            case "explicit id" -> {
                run(b, "INSERT INTO " + table + " (id, v) VALUES (" + explicitIds.decrementAndGet() + ", 2)");
                yield str(b, "SELECT LAST_INSERT_ID()");
            }
            case "explicit id, @@identity" -> {
                run(b, "INSERT INTO " + table + " (id, v) VALUES (" + explicitIds.decrementAndGet() + ", 2)");
                yield str(b, "SELECT @@identity");
            }
            case "zero rows" -> {
                run(b, "INSERT INTO " + table + " (v) SELECT 2 FROM DUAL WHERE 1 = 0");
                yield str(b, "SELECT LAST_INSERT_ID()");
            }
            case "INSERT IGNORE of a duplicate" -> {
                run(b, "INSERT IGNORE INTO " + table + " (id, v) VALUES (1, 2)");
                yield str(b, "SELECT LAST_INSERT_ID()");
            }
            case "failed insert" -> {
                assertThatThrownBy(() -> run(b, "INSERT INTO " + table + " (no_such_column) VALUES (2)"))
                        .isInstanceOf(SQLException.class);
                yield str(b, "SELECT LAST_INSERT_ID()");
            }
            default -> throw new IllegalArgumentException(how);
        };
    }

    static Stream<Arguments> mariaNoIdSteps() {
        return each("explicit id", "explicit id, @@identity", "zero rows", "INSERT IGNORE of a duplicate", "failed insert");
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("mariaNoIdSteps")
    void mariaAnInsertThatSetsNoIdLetsBReadAsId(Connector connector, String how) throws SQLException {
        mariaTable();
        String plain = plain(connector.url(null), mariaBReads(how));
        assertThat(plain).as("plain driver: a fresh session's").isEqualTo("0");
        long[] aKey = new long[1];
        Seen seen = mariaAfterA(maria(connector, 1, null), a -> aKey[0] = keyed(a, "INSERT INTO " + table + " (v) VALUES (1)"),
                b -> answer(mariaBReads(how), b));
        assertThat(seen.value()).as("A's key is %d; %s", aKey[0], seen).isIn(plain, REFUSED);
    }

    private String mariaSequence() throws SQLException {
        String s = table + "_sq";
        mariaCleanup.add("DROP SEQUENCE IF EXISTS " + s);
        mariaAdmin("CREATE SEQUENCE " + s);
        return s;
    }

    @ParameterizedTest
    @EnumSource(Connector.class)
    void mariaBReadsPreviousValueForOfASequenceItNeverTouched(Connector connector) throws SQLException {
        String s = mariaSequence();
        String other = table + "_sq2";
        mariaCleanup.add("DROP SEQUENCE IF EXISTS " + other);
        mariaAdmin("CREATE SEQUENCE " + other);
        Steps bReads = b -> {
            num(b, "SELECT NEXT VALUE FOR " + other);
            return str(b, "SELECT PREVIOUS VALUE FOR " + s);
        };
        String plain = plain(connector.url(null), bReads);
        assertThat(plain).as("plain driver").isNull();
        Seen seen = mariaAfterA(maria(connector, 1, null), a -> num(a, "SELECT NEXT VALUE FOR " + s), b -> answer(bReads, b));
        assertThat(seen.value()).as("%s", seen).isIn(plain, REFUSED);
    }

    /**
     * A parent whose id is NEXT VALUE FOR a sequence and a child whose parent id defaults to
     * PREVIOUS VALUE FOR it (or a trigger sets it so): B's first statement on A's connection inserts a child.
     */
    static Stream<Arguments> mariaChildren() {
        return each("default PREVIOUS VALUE FOR", "trigger PREVIOUS VALUE FOR", "trigger LAST_INSERT_ID()");
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("mariaChildren")
    void mariaBsChildRowIsCommittedWithAsParentId(Connector connector, String how) throws SQLException {
        String s = mariaSequence();
        String parent = table + "_p";
        String child = table + "_c";
        mariaCleanup.add(0, "DROP TABLE IF EXISTS " + parent + ", " + child);
        mariaAdmin("CREATE TABLE " + parent + " (id bigint " + (how.contains("LAST_INSERT_ID") ? "AUTO_INCREMENT"
                : "DEFAULT (NEXT VALUE FOR " + s + ")") + " PRIMARY KEY, v int)");
        if (how.startsWith("default")) {
            mariaAdmin("CREATE TABLE " + child + " (pid bigint DEFAULT (PREVIOUS VALUE FOR " + s + "), v int)");
        } else {
            mariaAdmin("CREATE TABLE " + child + " (pid bigint, v int)");
            mariaAdmin("CREATE TRIGGER " + child + "_g BEFORE INSERT ON " + child + " FOR EACH ROW SET NEW.pid = "
                    + (how.contains("LAST_INSERT_ID") ? "LAST_INSERT_ID()" : "PREVIOUS VALUE FOR " + s));
        }
        String rows = "SELECT coalesce(group_concat(concat(coalesce(pid, 'null'), ':', v)), 'none') FROM " + child;
        Steps bInserts = b -> {
            run(b, "INSERT INTO " + child + " (v) VALUES (2)");
            return "inserted";
        };
        plain(connector.url(null), bInserts);
        String plainRows;
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            plainRows = str(admin, rows);
            run(admin, "DELETE FROM " + child);
        }
        assertThat(plainRows).as("plain driver: a fresh session has no previous value").isIn("null:2", "0:2");
        Seen seen = mariaAfterA(maria(connector, 1, null), a -> {
            run(a, "INSERT INTO " + parent + " (v) VALUES (1)");
            run(a, "SELECT 1");
        }, b -> answer(bInserts, b));
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            assertThat(str(admin, rows)).as("B's row, A's parent being %s; %s", str(admin, "SELECT id FROM " + parent), seen)
                    .isIn(plainRows, "none");
        }
    }

    /** An upsert that sets LAST_INSERT_ID(id) keeps its connection even with its keys asked, however the text hides it. */
    static Stream<Arguments> upserts() {
        return each("ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id)",
                "ON DUPLICATE KEY UPDATE id = /*!50000 LAST_INSERT_ID(*/ id /*!50000 )*/",
                "ON DUPLICATE KEY UPDATE id = /*M!100000 LAST_INSERT_ID(*/ id /*M!100000 )*/",
                "ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id) -- a comment");
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("upserts")
    void mariaAnUpsertThatSetsLastInsertIdKeepsItsConnectionWithItsKeysAsked(Connector connector, String tail)
            throws SQLException {
        mariaTable();
        mariaAdmin("INSERT INTO " + table + " (id, v) VALUES (7, 7)");
        for (String options : new String[] {null, "rewriteBatchedStatements=true&allowMultiQueries=true"}) {
            LoomPoolDataSource ds = maria(connector, 1, options);
            try (Connection a = ds.getConnection()) {
                try (PreparedStatement ps = a.prepareStatement("INSERT INTO " + table + " (id, v) VALUES (7, 8) " + tail,
                        Statement.RETURN_GENERATED_KEYS)) {
                    ps.executeUpdate();
                }
                assertThat(bound(a)).as("kept for LAST_INSERT_ID(), %s", options).isTrue();
                assertThat(num(a, "SELECT LAST_INSERT_ID()")).as("the existing row's id, as on the plain driver").isEqualTo(7);
            }
        }
    }

    /** A keyed batch, rewritten into one INSERT or sent in bulk: its keys are A's rows, and B reads none of them. */
    @ParameterizedTest
    @EnumSource(Connector.class)
    void mariaAKeyedBatchHandsBackItsOwnKeysAndBReadsNoneOfThem(Connector connector) throws SQLException {
        mariaTable();
        StringBuilder keys = new StringBuilder();
        Seen seen = mariaAfterA(maria(connector, 1, "rewriteBatchedStatements=true"), a -> {
            try (PreparedStatement ps = a.prepareStatement("INSERT INTO " + table + " (v) VALUES (?)",
                    Statement.RETURN_GENERATED_KEYS)) {
                for (int v = 1; v <= 3; v++) {
                    ps.setInt(1, v);
                    ps.addBatch();
                }
                ps.executeBatch();
                try (ResultSet rs = ps.getGeneratedKeys()) {
                    while (rs.next()) {
                        keys.append(keys.length() == 0 ? "" : ",").append(rs.getLong(1));
                    }
                }
            }
        }, b -> answer(c -> str(c, "SELECT LAST_INSERT_ID()"), b));
        assertThat(keys).hasToString(idWithV(1) + "," + idWithV(2) + "," + idWithV(3));
        assertThat(seen.value()).as("%s", seen).isIn("0", REFUSED);
    }
}
