package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What borrower A works on in the pin-semantics tests (DESIGN.md §6, issue 10): a table of its
 * own per test ({@code id int PRIMARY KEY}; SQL may name it {@code {t}}), pools of one connection
 * with a short acquire timeout, the plain SQL helpers, and the rows an independent session sees
 * committed. {@link PinSemanticsSupport} adds borrower B and the scenarios.
 *
 * <p>The table is made before each test and dropped, with the pools, after it.
 */
class PinFixture implements BeforeEachCallback, AfterEachCallback {

    /** Long enough to hand out an idle connection; what B waits out when A holds the only one. */
    static final Duration ACQUIRE_TIMEOUT = Duration.ofMillis(300);

    final String table = "pin_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final List<LoomPoolDataSource> dataSources = new ArrayList<>();

    private final TestDatabase database;
    private final String url;
    private final Supplier<String> backendIdSql;
    private final List<String> sessionProbes;
    private final String inTransactionProbe;

    /**
     * @param url the pool's and the plain reference's URL
     * @param backendIdSql the query of the backend's id, asked for each time it is read (MariaDB's marks itself)
     * @param sessionProbes queries that must answer the same on a reused connection as on a fresh one
     * @param inTransactionProbe a query that says whether the session is inside a transaction ("0"
     *     when not), or null if the dialect has none
     */
    PinFixture(TestDatabase database, String url, Supplier<String> backendIdSql, List<String> sessionProbes,
            String inTransactionProbe) {
        this.database = database;
        this.url = url;
        this.backendIdSql = backendIdSql;
        this.sessionProbes = sessionProbes;
        this.inTransactionProbe = inTransactionProbe;
    }

    TestDatabase database() {
        return database;
    }

    String url() {
        return url;
    }

    List<String> sessionProbes() {
        return sessionProbes;
    }

    String inTransactionProbe() {
        return inTransactionProbe;
    }

    // ---- fixture -------------------------------------------------------------------------------------

    @Override
    public void beforeEach(ExtensionContext context) throws SQLException {
        try (Connection c = database().admin(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + table + " (id int PRIMARY KEY)");
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws SQLException {
        dataSources.forEach(LoomPoolDataSource::close);
        try (Connection c = database().admin(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    LoomPoolDataSource dataSource(int maxSize) {
        return dataSource(maxSize, url(), null);
    }

    LoomPoolDataSource dataSource(int maxSize, String url, String initSql) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(url);
        ds.setPoolName("pin-" + table);
        ds.setMinSize(1); // made at start: a connect is not bounded by the short acquire timeout there
        ds.setMaxSize(maxSize);
        ds.setAcquireTimeout(ACQUIRE_TIMEOUT);
        ds.setConnectionInitSql(initSql);
        dataSources.add(ds);
        return ds;
    }

    // ---- SQL -----------------------------------------------------------------------------------------

    /** The URL with driver options added: {@code withOptions(url, "a=1&b=2")}. */
    static String withOptions(String url, String options) {
        return url + (url.contains("?") ? "&" : "?") + options;
    }

    String sql(String text) {
        return text.replace("{t}", table);
    }

    String insert(int id) {
        return "INSERT INTO " + table + " VALUES (" + id + ")";
    }

    /** Runs each text on a statement of its own, closed at once. */
    void run(Connection c, String... texts) throws SQLException {
        for (String text : texts) {
            try (Statement st = c.createStatement()) {
                st.execute(sql(text));
            }
        }
    }

    static String answer(Connection c, String query) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            assertThat(rs.next()).as("a row from %s", query).isTrue();
            return rs.getString(1);
        }
    }

    Map<String, String> answers(Connection c, List<String> queries) throws SQLException {
        Map<String, String> answers = new LinkedHashMap<>();
        for (String q : queries) {
            answers.put(q, answer(c, sql(q)));
        }
        return answers;
    }

    long backend(Connection c) throws SQLException {
        return Long.parseLong(answer(c, backendIdSql.get()));
    }

    static LoomConnection loom(Connection c) throws SQLException {
        return c.unwrap(LoomConnection.class);
    }

    // ---- what is committed ---------------------------------------------------------------------------

    /** The committed rows, as an independent plain session sees them. */
    List<Integer> committed() throws SQLException {
        List<Integer> ids = new ArrayList<>();
        try (Connection c = database().admin(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT id FROM " + table + " ORDER BY id")) {
            while (rs.next()) {
                ids.add(rs.getInt(1));
            }
        }
        return ids;
    }

    /** Committed rows now, from an independent session, and again once the pool is closed. */
    void assertCommitted(LoomPoolDataSource ds, List<Integer> expected) throws SQLException {
        assertThat(committed()).as("committed rows, seen from an independent session").isEqualTo(expected);
        ds.close();
        assertThat(committed()).as("committed rows after ds.close()").isEqualTo(expected);
    }

    static List<Integer> plus(List<Integer> rows, int row) {
        List<Integer> all = new ArrayList<>(rows);
        all.add(row);
        all.sort(null);
        return all;
    }
}
