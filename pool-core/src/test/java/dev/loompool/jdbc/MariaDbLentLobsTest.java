package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Blob;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * From a review attack (issue 26): LOBs are now the pool's wrappers. MariaDB's LOBs are values (their
 * {@code toString()} is the text, {@code equals} compares the bytes); the wrappers are not, so a
 * correct plain-driver program that compares or prints them gets another answer.
 */
class MariaDbLentLobsTest extends OnRealDatabases {

    /** clob.toString(), and whether two reads of the same blob are equal: "text|true". */
    private String readLobs(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT b, t, b FROM " + table + " WHERE id = 1")) {
            rs.next();
            Blob first = rs.getBlob(1);
            Clob text = rs.getClob(2);
            Blob again = rs.getBlob(3);
            return text.toString() + "|" + first.equals(again);
        }
    }

    @Test
    void mariaDbLobsCompareAndPrintAsOnThePlainDriver() throws SQLException {
        mariaAdmin("CREATE TABLE " + table + " (id int PRIMARY KEY, b blob, t text) ENGINE=InnoDB");
        mariaCleanup.add("DROP TABLE IF EXISTS " + table);
        mariaAdmin("INSERT INTO " + table + " VALUES (1, 'bytes', 'some text')");
        String plain;
        try (Connection c = TestDatabase.MARIADB.admin()) {
            plain = readLobs(c);
        }
        assertThat(plain).as("plain driver").isEqualTo("some text|true");
        LoomPoolDataSource ds = maria(1);
        try (Connection c = ds.getConnection()) {
            assertThat(readLobs(c)).isEqualTo(plain);
        }
    }
}
