package dev.loompool.jdbc;

import static dev.loompool.jdbc.SecretLeaks.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import jdk.jfr.consumer.RecordingStream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The masked pin statement (secrets masking, DESIGN.md §4; issue 30): every input here holds a
 * secret that the server reads as a literal (or, where noted, as the value of a setting), and the
 * secret reaches none of the outputs that show the pin statement: {@code getBoundHandles()}, the
 * MXBean's BoundHandles, the pinWarningThreshold WARN, the Flight Recorder {@code dev.loompool.Pin}
 * event. Real-server tests check that the server did read the secret as a value, so that a leak
 * would not be a lexing curiosity. The mask alone: {@link SqlMaskHidesEveryLiteralTest}.
 */
class PinStatementShowsNoSecretTest extends StubSupport {

    /** The real servers' pools, closed after each test; the manual clock. */
    @RegisterExtension
    final SecretMaskingPools pools = new SecretMaskingPools();

    interface SqlAction {
        void run(Connection c) throws SQLException;
    }

    // ---- harness ----------------------------------------------------------------------------

    private LoomPoolDataSource stubPool() {
        LoomPoolDataSource ds = dataSource();
        return pools.configure(ds);
    }

    /**
     * Runs {@code action} on a handle of {@code ds} and reads every output that shows the pin
     * statement: the bound handles, the MXBean, the WARN (after the threshold) and, when the pin
     * outlives a statement, the JFR event at the handle's close. {@code check} runs on the same
     * handle after the outputs were read (to ask the server what it made of the SQL).
     */
    private Map<String, String> outputs(LoomPoolDataSource ds, SqlAction action, boolean timedPin, SqlAction check)
            throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> events = new CopyOnWriteArrayList<>();
        try (RecordingStream stream = new RecordingStream()) {
            stream.enable("dev.loompool.Pin").withThreshold(Duration.ZERO);
            stream.onEvent("dev.loompool.Pin", e -> {
                if (ds.getPoolName().equals(e.getString("poolName"))) {
                    events.add(e.getString("statement"));
                }
            });
            stream.startAsync();
            try (Connection c = ds.getConnection()) {
                action.run(c);
                List<HandleInfo> handles = ds.getBoundHandles();
                assertThat(handles).as("the handle is bound and pinned").hasSize(1);
                out.put("HandleInfo.pinStatement", handles.get(0).pinStatement());
                out.put("getBoundHandles()", handles.toString());
                CompositeData[] mbean = (CompositeData[]) ManagementFactory.getPlatformMBeanServer()
                        .getAttribute(new ObjectName("dev.loompool:type=Pool,name=" + ds.getPoolName()), "BoundHandles");
                out.put("MXBean BoundHandles.pinStatement", Arrays.stream(mbean).map(d -> String.valueOf(d.get("pinStatement"))).toList().toString());
                String log = SecretLeaks.logOf(() -> {
                    pools.clock.advance(Duration.ofSeconds(11));
                    ds.scanNow();
                });
                out.put("WARN log", log.lines().filter(l -> l.contains("pinWarningThreshold")).reduce("", String::concat));
                if (check != null) {
                    check.run(c);
                }
            }
            if (timedPin) {
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (events.isEmpty() && System.nanoTime() - deadline < 0) {
                    LockSupport.parkNanos(20_000_000);
                }
                out.put("JFR dev.loompool.Pin statement", String.join(" | ", events));
            }
        }
        System.out.println("[atkmask] " + out);
        return out;
    }

    /** Every output exists (so the probe reached them) and none shows {@code secret}. */
    private static void assertNowhere(Map<String, String> out, String secret, boolean warns) {
        assertThat(out.get("HandleInfo.pinStatement")).as("the pin statement is shown at all").isNotNull();
        if (warns) {
            assertThat(out.get("WARN log")).as("the warning was written").contains("started by:");
        }
        SoftAssertions soft = new SoftAssertions();
        out.forEach((where, text) -> soft.assertThat(text).as("%s leaks %s", where, secret).doesNotContain(secret));
        soft.assertAll();
    }

    private static SqlAction execute(String sql) {
        return c -> {
            try (Statement st = c.createStatement()) {
                st.execute(sql);
            }
        };
    }

    /** A statement left open: its SQL is the STATEMENT pin's. */
    private static SqlAction prepareOpen(String sql) {
        return c -> c.prepareStatement(sql); // closed with the handle
    }

    private static SqlAction expect(String query, String value) {
        return c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).as("the server read the secret as the value").isEqualTo(value);
            }
        };
    }

    // ---- through the pool: the stub (dialect OTHER) ------------------------------------------

    @Test
    void stubASetWithAQuotedSecretIsMaskedEverywhere() throws Exception {
        assertNowhere(outputs(stubPool(), execute("SET app.token = 'S3cretTok9'"), true, null), SECRET, true);
    }

    @Test
    void stubAnExecutableCommentThatTheServerReadsAsACommentHidesNoQuote() throws Exception {
        // H2, Oracle, SQL Server... read /*! … */ as a comment: the server's literal is 'S3cretTok9'
        assertNowhere(outputs(stubPool(), execute("SET @a = /*! '*/ 'S3cretTok9' /*! '*/"), true, null), SECRET, true);
    }

    @Test
    void stubABracketIdentifierWithAQuoteInItHidesNoLiteral() throws Exception {
        // SQL Server / Sybase: [it's] is a name, 'S3cretTok9' the literal
        assertNowhere(outputs(stubPool(), prepareOpen("SELECT 1 AS [it's], 'S3cretTok9'"), false, null), SECRET, false);
    }

    @Test
    void stubADoubleSlashCommentWithAQuoteInItHidesNoLiteral() throws Exception {
        // H2 reads // as a line comment
        assertNowhere(outputs(stubPool(), prepareOpen("SELECT 1 // it's\n, 'S3cretTok9'"), false, null), SECRET, false);
    }

    @Test
    void stubAPreparedStatementsParametersAreNeverShown() throws Exception {
        Map<String, String> out = outputs(stubPool(), c -> {
            PreparedStatement ps = c.prepareStatement("SELECT * FROM t WHERE a = ?");
            ps.setString(1, SECRET);
            ps.executeQuery();
        }, false, null);
        assertNowhere(out, SECRET, false);
    }

    @Test
    void stubAMultiLineLiteralShowsNoneOfItsFirstLine() throws Exception {
        assertNowhere(outputs(stubPool(), execute("SET app.token = 'S3cretTok9\nrest'"), true, null), SECRET, true);
    }

    // ---- PostgreSQL, the real server ---------------------------------------------------------

    @Test
    void postgresQuotedSetInEveryStringSpellingIsMasked() throws Exception {
        for (String sql : List.of("SET app.atkmask_token TO 'S3cretTok9'", "SET app.atkmask_token = E'S3cret\\x54ok9'",
                "SET app.atkmask_token = $tag$S3cretTok9$tag$", "SET app.atkmask_token = U&'S3cretTok9'",
                "/* /* it's */ ' */ SET app.atkmask_token = 'S3cretTok9'",
                "SELECT set_config('app.atkmask_token', 'S3cretTok9', false)")) {
            assertNowhere(outputs(pools.realPool(TestDatabase.POSTGRES), execute(sql), true,
                    expect("SELECT current_setting('app.atkmask_token')", SECRET)), SECRET, true);
        }
    }

    @Test
    void postgresBackslashInAPlainStringUnderStandardConformingStringsOff() throws Exception {
        LoomPoolDataSource ds = pools.realPool(TestDatabase.POSTGRES);
        ds.setConnectionInitSql("SET standard_conforming_strings = off");
        assertNowhere(outputs(ds, execute("SET app.atkmask_token = 'it\\' S3cretTok9 '"), true,
                expect("SELECT current_setting('app.atkmask_token')", "it' S3cretTok9 ")), SECRET, true);
    }

    @Test
    void postgresSetToADoubleQuotedValueShowsTheValue() throws Exception {
        // PostgreSQL's SET takes a quoted identifier as the value: the setting now holds the secret
        assertNowhere(outputs(pools.realPool(TestDatabase.POSTGRES), execute("SET app.atkmask_token TO \"S3cretTok9\""), true,
                expect("SELECT current_setting('app.atkmask_token')", SECRET)), SECRET, true);
    }

    @Test
    void postgresSetToABareWordShowsTheValue() throws Exception {
        assertNowhere(outputs(pools.realPool(TestDatabase.POSTGRES), execute("SET app.atkmask_token TO s3crettok9"), true,
                expect("SELECT current_setting('app.atkmask_token')", "s3crettok9")), "s3crettok9", true);
    }

    @Test
    void postgresAStringRightAfterTheAtOperatorIsShown() throws Exception {
        // @ is PostgreSQL's absolute-value operator; the lexer reads @'…' as a MySQL variable name
        String table = "atkmask_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        assertNowhere(outputs(pools.realPool(TestDatabase.POSTGRES),
                execute("CREATE TEMP TABLE " + table + " AS SELECT @'-4111111111111111'::bigint AS card"), true,
                expect("SELECT card FROM " + table, "4111111111111111")), "4111111111111111", true);
    }

    @Test
    void postgresContainedByOperatorBeforeAStringIsShown() throws Exception {
        // <@ is "is contained by"; a statement left open shows its SQL (STATEMENT pin)
        Map<String, String> out = outputs(pools.realPool(TestDatabase.POSTGRES), c -> {
            PreparedStatement ps = c.prepareStatement("SELECT ARRAY['a'] <@'{a,S3cretTok9}'");
            ResultSet rs = ps.executeQuery();
            assertThat(rs.next()).isTrue();
            assertThat(rs.getBoolean(1)).isTrue();
        }, false, null);
        assertNowhere(out, SECRET, false);
    }

    // ---- MariaDB, the real server ------------------------------------------------------------

    @Test
    void mariaDbQuotedSetInEveryStringSpellingIsMasked() throws Exception {
        for (String sql : List.of("SET @atkmask = 'S3cretTok9'", "SET @atkmask = \"S3cretTok9\"",
                "SET @atkmask = 'it\\'s S3cretTok9'", "# it's\nSET @atkmask = 'S3cretTok9'",
                "SET @atkmask = _utf8mb4'S3cretTok9'", "SET @atkmask = /*!'S3cretTok9'*/",
                "SET @atkmask = /*M!100000 'S3cretTok9' */")) {
            String expected = sql.contains("it\\'s") ? "it's S3cretTok9" : SECRET;
            assertNowhere(outputs(pools.realPool(TestDatabase.MARIADB), execute(sql), true, expect("SELECT @atkmask", expected)),
                    SECRET, true);
        }
    }

    @Test
    void mariaDbNoBackslashEscapes() throws Exception {
        // the session's sql_mode comes from the init SQL, so that the SET below is the pin's statement
        LoomPoolDataSource ds = pools.realPool(TestDatabase.MARIADB);
        ds.setConnectionInitSql("SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')");
        assertNowhere(outputs(ds, execute("SET @atkmask = CONCAT('x\\', 'S3cretTok9')"), true,
                expect("SELECT @atkmask", "x\\S3cretTok9")), SECRET, true);
    }

    @Test
    void mariaDbAVersionedCommentTheServerSkipsHidesNoQuote() throws Exception {
        // MariaDB 10.11 does not run /*M!999999 … */ (version 99.99.99): to it the quotes inside are comment
        assertNowhere(outputs(pools.realPool(TestDatabase.MARIADB),
                execute("SET @atkmask = /*M!999999 '*/ 'S3cretTok9' /*M!999999 '*/"), true,
                expect("SELECT @atkmask", SECRET)), SECRET, true);
    }

    @Test
    void mariaDbAMySqlVersionedCommentMariaDbSkipsHidesNoQuote() throws Exception {
        // MariaDB skips /*!50700 … */ to /*!99999 … */ (MySQL 5.7+ syntax)
        assertNowhere(outputs(pools.realPool(TestDatabase.MARIADB),
                execute("SET @atkmask = /*!99999 '*/ 'S3cretTok9' /*!99999 '*/"), true,
                expect("SELECT @atkmask", SECRET)), SECRET, true);
    }
}
