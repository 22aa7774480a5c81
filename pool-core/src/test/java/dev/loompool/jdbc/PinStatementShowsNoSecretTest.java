package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.ManualClockAccess;
import dev.loompool.jdbc.internal.sql.SqlDialect;
import dev.loompool.jdbc.internal.sql.SqlMask;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import jdk.jfr.consumer.RecordingStream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Attack on the masked pin statement (issue 30): every input here holds a secret that the server
 * reads as a literal (or, where noted, as the value of a setting), and each test asserts the SAFE
 * behaviour, that the secret reaches none of the outputs: {@code getBoundHandles()}, the MXBean's
 * BoundHandles, the pinWarningThreshold WARN, the Flight Recorder {@code dev.loompool.Pin} event.
 * A failing test marks a leak. Real-server tests check that the server did read the secret as a
 * value, so that the leak is not a lexing curiosity.
 */
class PinStatementShowsNoSecretTest extends StubSupport {

    private static final String SECRET = "S3cretTok9";

    private final ManualClockAccess clock = new ManualClockAccess();
    private final List<LoomPoolDataSource> real = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeReal() {
        real.forEach(LoomPoolDataSource::close);
    }

    interface SqlAction {
        void run(Connection c) throws SQLException;
    }

    // ---- harness ----------------------------------------------------------------------------

    private LoomPoolDataSource stubPool() {
        LoomPoolDataSource ds = dataSource();
        return configure(ds);
    }

    private LoomPoolDataSource realPool(TestDatabase database) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(database.url());
        ds.setPoolName("atkmask-" + UUID.randomUUID().toString().substring(0, 8));
        ds.setMinSize(0);
        real.add(ds);
        return configure(ds);
    }

    private LoomPoolDataSource configure(LoomPoolDataSource ds) {
        ds.setMaxSize(2);
        ds.setClock(clock);
        ds.setPinWarningThreshold(Duration.ofSeconds(10));
        ds.setRegisterMbeans(true);
        return ds;
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
                    clock.advance(Duration.ofSeconds(11));
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

    // ---- SqlMask on its own: the lexer's reading against each server's ----------------------

    /**
     * Inputs that must come out without the secret. Columns: dialect, SQL ({@code \n} for a line
     * break), the secret. The comment after each names the server reading that makes it a literal.
     */
    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', textBlock = """
            POSTGRES | SET app.token TO 'S3cretTok9'                                   | S3cretTok9
            POSTGRES | SET app.token = E'it\\'s S3cretTok9'                            | S3cretTok9
            POSTGRES | SET app.token = 'it\\' S3cretTok9 '                              | S3cretTok9
            POSTGRES | SET app.token = $tag$S3cretTok9$tag$                            | S3cretTok9
            POSTGRES | SET app.token = $$S3cretTok9$$                                  | S3cretTok9
            POSTGRES | SET app.token = U&'S3cretTok9'                                  | S3cretTok9
            POSTGRES | /* /* */ ' */ SET app.token = 'S3cretTok9'                      | S3cretTok9
            POSTGRES | -- it's\\nSET app.token = 'S3cretTok9'                          | S3cretTok9
            POSTGRES | \\nSET app.token = 'S3cretTok9'                                 | S3cretTok9
            POSTGRES | SELECT set_config('app.secret', 'S3cretTok9', false)            | S3cretTok9
            POSTGRES | ALTER ROLE atkmask PASSWORD 'S3cretTok9'                        | S3cretTok9
            POSTGRES | CREATE USER atkmask WITH PASSWORD 'S3cretTok9'                  | S3cretTok9
            POSTGRES | SELECT X'DEADBEEF', B'1011', 4111111111111111                   | DEADBEEF
            POSTGRES | SELECT 4111111111111111                                         | 4111111111111111
            POSTGRES | SELECT 'bob@example.com'                                        | bob@example.com
            POSTGRES | SELECT 'S3cretTok9 first line\\nsecond line'                     | S3cretTok9
            POSTGRES | {call p('S3cretTok9')}                                          | S3cretTok9
            POSTGRES | CALL p('S3cretTok9')                                            | S3cretTok9
            POSTGRES | SELECT * FROM t WHERE a = ? AND b = 'S3cretTok9'                | S3cretTok9
            POSTGRES | SELECT * FROM t WHERE tags <@'{S3cretTok9}'                     | S3cretTok9
            POSTGRES | SELECT @'-4111111111111111'::bigint                             | 4111111111111111
            POSTGRES | SET app.token TO "S3cretTok9"                                   | S3cretTok9
            POSTGRES | SET app.token TO S3cretTok9                                     | S3cretTok9
            POSTGRES | SELECT 4111_1111_1111_1111                                      | 1111_1111
            MYSQL    | SET @a = 'S3cretTok9'                                           | S3cretTok9
            MYSQL    | SET SESSION x = "S3cretTok9"                                    | S3cretTok9
            MYSQL    | SET @a = 'it\\'s S3cretTok9'                                     | S3cretTok9
            MYSQL    | SET @a = 'it\\' S3cretTok9 '                                     | S3cretTok9
            MYSQL    | SET @a = "it\\"s S3cretTok9"                                     | S3cretTok9
            MYSQL    | # it's\\nSET @a = 'S3cretTok9'                                  | S3cretTok9
            MYSQL    | SET @a = _utf8mb4'S3cretTok9'                                   | S3cretTok9
            MYSQL    | SET @a = 0xDEADBEEF                                             | DEADBEEF
            MYSQL    | SET @a = X'DEADBEEF'                                            | DEADBEEF
            MYSQL    | SET PASSWORD = PASSWORD('S3cretTok9')                           | S3cretTok9
            MYSQL    | ALTER USER atkmask IDENTIFIED BY 'S3cretTok9'                   | S3cretTok9
            MYSQL    | SET @a = /*!99999 '*/ 'S3cretTok9' /*!99999 '*/                 | S3cretTok9
            MYSQL    | SET @a = /*M!999999 '*/ 'S3cretTok9' /*M!999999 '*/             | S3cretTok9
            MYSQL    | CREATE USER 'atkmask'@'S3cretTok9' IDENTIFIED BY 'pw'          | S3cretTok9
            OTHER    | SET @a = 'S3cretTok9'                                           | S3cretTok9
            OTHER    | SET @a = /*! '*/ 'S3cretTok9' /*! '*/                          | S3cretTok9
            OTHER    | SELECT 1 AS [it's], 'S3cretTok9'                                | S3cretTok9
            OTHER    | SELECT q'[it's S3cretTok9]' FROM dual                          | S3cretTok9
            OTHER    | SELECT 1 // it's\\n, 'S3cretTok9'                               | S3cretTok9
            POSTGRES | -- token S3cretTok9\\nSET app.x = 1                            | S3cretTok9
            POSTGRES | SET app.x TO 'a', "S3cretTok9"                                  | S3cretTok9
            MYSQL    | # token S3cretTok9\\nSET @a = 1                                | S3cretTok9
            MYSQL    | SET @a = 1 /*+ S3cretTok9 */                                    | S3cretTok9
            MYSQL    | SET @a = 1 /*!99999 token S3cretTok9 */                         | S3cretTok9
            MYSQL    | SET @a = 1 /*M!999999 token S3cretTok9 */                       | S3cretTok9
            OTHER    | SET @a = 1 /*! token S3cretTok9 */                              | S3cretTok9
            OTHER    | SELECT "S3cretTok9"                                             | S3cretTok9
            """)
    void theMaskHidesTheSecret(String dialect, String sql, String secret) {
        String text = sql.replace("\\n", "\n").replace("\\\\", "\\");
        String masked = SqlMask.firstLine(text, SqlDialect.valueOf(dialect));
        System.out.println("[atkmask] " + dialect + " " + text.replace("\n", "\\n") + "  ->  " + masked);
        assertThat(masked).as("mask of %s", text).doesNotContain(secret);
    }

    @Test
    void aLongStatementIsCutAfterMaskingNotInsideALiteral() {
        String sql = "SET app.token = '" + "x".repeat(150) + "' || '" + "A".repeat(40) + SECRET + "'";
        String masked = SqlMask.firstLine(" ".repeat(0) + "SELECT " + "a, ".repeat(60) + sql, SqlDialect.POSTGRES);
        assertThat(masked).doesNotContain("S3cret").doesNotContain("AAAA").endsWith("…");
        String nul = SqlMask.firstLine("SET @a = 'x\u0000" + SECRET + "'", SqlDialect.MYSQL);
        assertThat(nul).doesNotContain(SECRET);
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
            assertNowhere(outputs(realPool(TestDatabase.POSTGRES), execute(sql), true,
                    expect("SELECT current_setting('app.atkmask_token')", SECRET)), SECRET, true);
        }
    }

    @Test
    void postgresBackslashInAPlainStringUnderStandardConformingStringsOff() throws Exception {
        LoomPoolDataSource ds = realPool(TestDatabase.POSTGRES);
        ds.setConnectionInitSql("SET standard_conforming_strings = off");
        assertNowhere(outputs(ds, execute("SET app.atkmask_token = 'it\\' S3cretTok9 '"), true,
                expect("SELECT current_setting('app.atkmask_token')", "it' S3cretTok9 ")), SECRET, true);
    }

    @Test
    void postgresSetToADoubleQuotedValueShowsTheValue() throws Exception {
        // PostgreSQL's SET takes a quoted identifier as the value: the setting now holds the secret
        assertNowhere(outputs(realPool(TestDatabase.POSTGRES), execute("SET app.atkmask_token TO \"S3cretTok9\""), true,
                expect("SELECT current_setting('app.atkmask_token')", SECRET)), SECRET, true);
    }

    @Test
    void postgresSetToABareWordShowsTheValue() throws Exception {
        assertNowhere(outputs(realPool(TestDatabase.POSTGRES), execute("SET app.atkmask_token TO s3crettok9"), true,
                expect("SELECT current_setting('app.atkmask_token')", "s3crettok9")), "s3crettok9", true);
    }

    @Test
    void postgresAStringRightAfterTheAtOperatorIsShown() throws Exception {
        // @ is PostgreSQL's absolute-value operator; the lexer reads @'…' as a MySQL variable name
        String table = "atkmask_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        assertNowhere(outputs(realPool(TestDatabase.POSTGRES),
                execute("CREATE TEMP TABLE " + table + " AS SELECT @'-4111111111111111'::bigint AS card"), true,
                expect("SELECT card FROM " + table, "4111111111111111")), "4111111111111111", true);
    }

    @Test
    void postgresContainedByOperatorBeforeAStringIsShown() throws Exception {
        // <@ is "is contained by"; a statement left open shows its SQL (STATEMENT pin)
        Map<String, String> out = outputs(realPool(TestDatabase.POSTGRES), c -> {
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
            assertNowhere(outputs(realPool(TestDatabase.MARIADB), execute(sql), true, expect("SELECT @atkmask", expected)),
                    SECRET, true);
        }
    }

    @Test
    void mariaDbNoBackslashEscapes() throws Exception {
        // the session's sql_mode comes from the init SQL, so that the SET below is the pin's statement
        LoomPoolDataSource ds = realPool(TestDatabase.MARIADB);
        ds.setConnectionInitSql("SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')");
        assertNowhere(outputs(ds, execute("SET @atkmask = CONCAT('x\\', 'S3cretTok9')"), true,
                expect("SELECT @atkmask", "x\\S3cretTok9")), SECRET, true);
    }

    @Test
    void mariaDbAVersionedCommentTheServerSkipsHidesNoQuote() throws Exception {
        // MariaDB 10.11 does not run /*M!999999 … */ (version 99.99.99): to it the quotes inside are comment
        assertNowhere(outputs(realPool(TestDatabase.MARIADB),
                execute("SET @atkmask = /*M!999999 '*/ 'S3cretTok9' /*M!999999 '*/"), true,
                expect("SELECT @atkmask", SECRET)), SECRET, true);
    }

    @Test
    void mariaDbAMySqlVersionedCommentMariaDbSkipsHidesNoQuote() throws Exception {
        // MariaDB skips /*!50700 … */ to /*!99999 … */ (MySQL 5.7+ syntax)
        assertNowhere(outputs(realPool(TestDatabase.MARIADB),
                execute("SET @atkmask = /*!99999 '*/ 'S3cretTok9' /*!99999 '*/"), true,
                expect("SELECT @atkmask", SECRET)), SECRET, true);
    }

    // ---- passwords: the start while the database refuses, the health detail, a request's connect ----

    /** A driver failure that echoes the password it was given, as a careless driver does. */
    private static SQLException echoing(String password) {
        return new java.sql.SQLNonTransientConnectionException("FATAL: login refused for password=" + password
                + " (url jdbc:x://app:" + password + "@db/x)", "28P01");
    }

    private static String startInBackground(LoomPoolDataSource ds, ManualClockAccess clock, Throwable[] failure)
            throws Exception {
        return SecretLeaks.logOf(() -> {
            Thread t = new Thread(() -> {
                try {
                    ds.start();
                } catch (Throwable e) {
                    failure[0] = e;
                }
            }, "atkmask-start");
            t.setDaemon(true);
            t.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (t.isAlive() && System.nanoTime() - deadline < 0) {
                clock.advance(Duration.ofMillis(500));
                LockSupport.unpark(t);
                LockSupport.parkNanos(2_000_000);
            }
            assertThat(t.isAlive()).as("the start ended").isFalse();
        });
    }

    @Test
    void aPositiveInitializationFailTimeoutNeverShowsThePasswordTheDriverEchoes() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setClock(clock);
        ds.setMinSize(1);
        ds.setPassword(SECRET);
        ds.setInitializationFailTimeout(Duration.ofSeconds(20));
        for (int i = 0; i < 200; i++) {
            db.failNextConnect(echoing(SECRET));
        }
        Throwable[] failure = new Throwable[1];
        String log = startInBackground(ds, clock, failure);
        assertThat(log).as("retry lines were written").contains("retrying");
        assertThat(failure[0]).as("the start failed").isNotNull();
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(log).as("retry WARN lines").doesNotContain(SECRET);
        soft.assertThat(SecretLeaks.everything(failure[0])).as("the start's failure").doesNotContain(SECRET)
                .contains("within initializationFailTimeout");
        soft.assertThat(String.valueOf(ds.getInitialConnectError())).as("getInitialConnectError()").doesNotContain(SECRET);
        soft.assertAll();
    }

    @Test
    void aNegativeInitializationFailTimeoutShowsThePasswordNowhere() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setClock(clock);
        ds.setMinSize(1);
        AtomicInteger rotation = new AtomicInteger();
        ds.setCredentialsSupplier(() -> new Credentials("app", SECRET + "-" + rotation.incrementAndGet()));
        for (int i = 0; i < 5; i++) {
            db.failNextConnect(echoing(SECRET + "-" + (i + 1)));
        }
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        String startLog = SecretLeaks.logOf(ds::start);
        assertThat(startLog).contains("started without connections");
        String initial = ds.getInitialConnectError();
        assertThat(initial).as("the health detail's text").isNotNull();
        Throwable request = null;
        try (Connection c = ds.getConnection()) {
            // a connect that succeeded: the queue of failures ran out
        } catch (SQLException e) {
            request = e;
        }
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(startLog).as("startedShort WARN").doesNotContain(SECRET);
        soft.assertThat(initial).as("getInitialConnectError()").doesNotContain(SECRET);
        if (request != null) {
            soft.assertThat(SecretLeaks.everything(request)).as("a request's failed connect").doesNotContain(SECRET)
                    .contains("pool '" + ds.getPoolName() + "'");
        }
        soft.assertAll();
    }

    /**
     * The server's message quotes a literal of the pool's own init SQL ({@code invalid input syntax for
     * type integer: "S3cretTok9"}): the caller may see it (its own SQL), a log and the health detail should not.
     */
    @Test
    void postgresAnInitSqlErrorThatQuotesItsLiteralIsNotLoggedWhileRetrying() throws Exception {
        LoomPoolDataSource ds = initSqlFails();
        ds.setInitializationFailTimeout(Duration.ofMinutes(10));
        Throwable[] failure = new Throwable[1];
        String log = startInBackground(ds, clock, failure);
        assertThat(failure[0]).as("the start failed").isNotNull();
        assertThat(log).as("retry lines were written").contains("retrying");
        System.out.println("[atkmask] init SQL start failure (to the caller): " + failure[0]);
        System.out.println("[atkmask] init SQL retry log: " + log);
        assertThat(log).as("the retry WARN lines").doesNotContain(SECRET);
    }

    @Test
    void postgresAnInitSqlErrorThatQuotesItsLiteralIsNotLoggedNorInTheHealthDetail() throws Exception {
        LoomPoolDataSource ds = initSqlFails();
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        String log = SecretLeaks.logOf(ds::start);
        assertThat(log).contains("started without connections");
        System.out.println("[atkmask] init SQL startedShort log: " + log);
        System.out.println("[atkmask] init SQL getInitialConnectError: " + ds.getInitialConnectError());
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(log).as("the startedShort WARN").doesNotContain(SECRET);
        soft.assertThat(ds.getInitialConnectError()).as("getInitialConnectError() (health lastConnectError)")
                .isNotNull().doesNotContain(SECRET);
        soft.assertAll();
    }

    private LoomPoolDataSource initSqlFails() {
        LoomPoolDataSource ds = realPool(TestDatabase.POSTGRES);
        ds.setMinSize(1);
        ds.setConnectionInitSql("SELECT set_config('app.atkmask_token', 'S3cretTok9', false)::int");
        return ds;
    }
}
