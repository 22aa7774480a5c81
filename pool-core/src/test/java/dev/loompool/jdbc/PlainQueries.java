package dev.loompool.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Plain queries of the tests on the real databases, as static steps a test imports: one value of a
 * query, a statement run, the backend a handle is on (with or without the identity read that pins),
 * and the two Connector/Js of the MariaDB server.
 */
final class PlainQueries {

    private PlainQueries() {
    }

    /** Every text in turn, through each Connector/J. */
    static Stream<Arguments> each(String... texts) {
        List<Arguments> all = new ArrayList<>();
        for (Connector connector : Connector.values()) {
            for (String text : texts) {
                all.add(Arguments.of(connector, text));
            }
        }
        return all.stream();
    }
    /** The two Connector/Js that speak to the MariaDB server: each reads the wire its own way. */
    enum Connector {
        MARIADB_CONNECTOR_J("jdbc:mariadb:"),
        MYSQL_CONNECTOR_J("jdbc:mysql:");

        private final String scheme;

        Connector(String scheme) {
            this.scheme = scheme;
        }

        /** The MariaDB server's URL for this driver, with driver options added ("a=1&b=2"), or none. */
        String url(String options) {
            String url = TestDatabase.MARIADB.url().replace("jdbc:mariadb:", scheme);
            return options == null ? url : url + (url.contains("?") ? "&" : "?") + options;
        }
    }
    static String str(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
    static long num(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
    static void run(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
    static long pgPid(Connection c) throws SQLException {
        return num(c, "SELECT pg_backend_pid()");
    }
    static long myId(Connection c) throws SQLException {
        return num(c, "SELECT CONNECTION_ID()");
    }
    /**
     * The backend's id, read without pg_backend_pid() or CONNECTION_ID(), which pin the handle until
     * it closes (an identity read): for tests whose point is whether the handle stays bound.
     */
    static long pgPidUnpinned(Connection c) throws SQLException {
        return num(c, PostgresPinSemanticsTest.BACKEND_PID);
    }
    static long myIdUnpinned(Connection c) throws SQLException {
        return num(c, MariaDbPinSemanticsTest.connectionId());
    }
}
