package dev.loompool.jdbc;

import static dev.loompool.jdbc.SecretLeaks.everything;
import static dev.loompool.jdbc.SecretLeaks.logOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loompool.PoolListener;
import dev.loompool.jdbc.internal.handle.Internals;
import dev.loompool.stub.StubDriver;
import java.io.IOException;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.logging.Logger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, item 9: no password reaches a message loompool throws or logs, nor any cause,
 * suppressed or next exception of it, whether it came in the URL, the properties, setPassword or
 * a credentials supplier, and whatever the driver echoes of it.
 */
class SecretMaskingTest extends StubSupport {

    private static final String SECRET = "S3cretPw";

    private final List<Throwable> creationFailures = new CopyOnWriteArrayList<>();

    /**
     * java.util.logging's console handler takes {@code System.err} once, at its first record: bind
     * it to the real one now, so that a captured log holds what loompool logged (through slf4j),
     * whatever order the tests run in, and never by chance a driver's own JUL warning (pgjdbc
     * warns of a URL it cannot parse, the URL in full), which loompool does not write.
     */
    @BeforeAll
    static void bindDriverLoggingBeforeAnyCapture() {
        Logger.getLogger("").getHandlers();
    }

    private LoomPoolDataSource real(String url) {
        LoomPoolDataSource ds = dataSource();
        ds.setJdbcUrl(url);
        ds.setMinSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        ds.addPoolListener(new PoolListener() {
            @Override
            public void onCreationFailed(Throwable error) {
                creationFailures.add(error);
            }
        });
        return ds;
    }

    /** Starts {@code ds}, which must fail; checks the failure, the listener's view and the log. */
    private SQLException failedStart(LoomPoolDataSource ds) throws Exception {
        return (SQLException) failedStart(ds, SECRET);
    }

    /**
     * Starts {@code ds}, which must fail; checks that none of {@code secrets} shows anywhere, in
     * what loompool says and in what the PostgreSQL driver logs (java.util.logging).
     */
    private Exception failedStart(LoomPoolDataSource ds, String... secrets) throws Exception {
        Exception[] failure = new Exception[1];
        List<String> driverLog = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Logger pgjdbc = java.util.logging.Logger.getLogger("org.postgresql");
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                driverLog.add(new java.util.logging.SimpleFormatter().formatMessage(r));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        pgjdbc.addHandler(handler);
        String log;
        try {
            log = logOf(() -> failure[0] = catchThrowableOfType(Exception.class, ds::start));
        } finally {
            pgjdbc.removeHandler(handler);
        }
        assertThat(driverLog).as("what the PostgreSQL driver logged").noneMatch(line -> List.of(secrets).stream()
                .anyMatch(line::contains));
        assertThat((Throwable) failure[0]).as("start fails").isNotNull();
        assertNoSecret(failure[0], log, secrets);
        assertThat(ds.toString()).doesNotContain(secrets);
        assertThat(ds.getMaskedJdbcUrl()).doesNotContain(secrets);
        return failure[0];
    }

    private void assertNoSecret(Throwable failure, String log) {
        assertNoSecret(failure, log, SECRET);
    }

    private void assertNoSecret(Throwable failure, String log, String... secrets) {
        assertThat(everything(failure)).as("what the caller gets").doesNotContain(secrets);
        assertThat(log).as("what loompool logged").doesNotContain(secrets);
        creationFailures.forEach(f -> assertThat(everything(f)).as("what the generic pool saw").doesNotContain(secrets));
    }

    // ---- the password in the URL's authority, with the real drivers --------------------------

    /** A replica that is down at start stops it; its URL's password shows nowhere, nor in the masked URLs. */
    @Test
    void aReplicaUrlsPasswordIsMaskedWhenItCannotConnect() throws Exception {
        LoomPoolDataSource ds = real(TestDatabase.POSTGRES.url());
        String replica = "jdbc:postgresql://127.0.0.1:1/test?user=reader&password=" + SECRET;
        ds.setReplicas(List.of(replica));
        assertThat(ds.getMaskedReplicaUrls()).singleElement().asString().doesNotContain(SECRET).contains("password=****");
        SQLException e = failedStart(ds);
        assertThat(e.getMessage()).contains("-replica-1': could not open its minSize=1").contains("127.0.0.1:1");
    }

    @Test
    void aPasswordInThePostgresUrlAuthorityIsRefusedBeforeTheDriverSeesIt() throws Exception {
        // pgjdbc reads no user:password@: it would take "user:S3cretPw@127.0.0.1" for the host name
        Exception e = failedStart(real("jdbc:postgresql://user:" + SECRET + "@127.0.0.1:5432/test"), SECRET);
        assertThat(e).isInstanceOf(IllegalArgumentException.class).hasMessage("jdbcUrl "
                + "jdbc:postgresql://user:****@127.0.0.1:5432/test has a user and password before the host, which the "
                + "PostgreSQL driver does not read (it would log the whole URL); set username and password instead");
    }

    @Test
    void aPostgresUrlWithoutASlashAfterTheHostIsRefusedBeforeTheDriverLogsIt() throws Exception {
        Exception e = failedStart(real("jdbc:postgresql://127.0.0.1:1?user=u&password=" + SECRET), SECRET);
        assertThat(e).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs a / after the host");
    }

    @Test
    void aPasswordInTheMariaDbUrlAuthorityIsMaskedInThePreWarmFailure() throws Exception {
        // MariaDB Connector/J takes "S3cretPw@127.0.0.1" for the port: "Incorrect port value : S3cretPw@…"
        SQLException e = failedStart(real("jdbc:mariadb://user:" + SECRET + "@127.0.0.1:notaport/test"));
        assertThat(e.getMessage()).contains("Incorrect port value : ****@127.0.0.1");
    }

    @Test
    void aPasswordInTheMariaDbUrlAuthorityIsMaskedWhenAStatementConnects() throws Exception {
        LoomPoolDataSource ds = real("jdbc:mariadb://user:" + SECRET + "@no-such-host.invalid/test");
        ds.setMinSize(0);
        SQLException[] failure = new SQLException[1];
        String log = logOf(() -> {
            try (Connection c = ds.getConnection()) {
                failure[0] = catchThrowableOfType(SQLException.class, () -> {
                    try (Statement st = c.createStatement()) { // binds: the connect is now
                        st.execute("SELECT 1");
                    }
                });
            }
        });
        assertThat(failure[0].getMessage()).startsWith("pool '" + ds.getPoolName() + "': could not open a connection")
                .endsWith(": Incorrect port value : ****@no-such-host.invalid");
        assertThat(failure[0].getCause()).hasMessage("Incorrect port value : ****@no-such-host.invalid");
        assertNoSecret(failure[0], log);
        assertThat(creationFailures).hasSize(1);
    }

    @Test
    void aPasswordInTheUrlAuthorityMayHoldAnAtSign() throws Exception {
        // user:S3cret@Pw@host: the last @ of the authority ends the password, as the drivers read it
        LoomPoolDataSource ds = real("jdbc:postgresql://user:S3cret@Pw@127.0.0.1:5432/test");
        Exception e = catchThrowableOfType(Exception.class, ds::start);
        assertThat((Throwable) e).isNotNull();
        assertThat(everything(e)).doesNotContain("S3cret@Pw").doesNotContain("S3cret").doesNotContain("@Pw@");
        assertThat(ds.getMaskedJdbcUrl()).isEqualTo("jdbc:postgresql://user:****@127.0.0.1:5432/test");
    }

    @Test
    void aPasswordWithAQuestionMarkInThePostgresUrlAuthorityIsMaskedWhole() throws Exception {
        // pgjdbc would cut the query at the first ?, find no / after "postgres:S3cret" and log the URL
        Exception e = failedStart(real("jdbc:postgresql://postgres:S3cret?Pw2024@127.0.0.1:1/test"),
                "S3cret", "Pw2024");
        assertThat(e.getMessage()).contains("jdbcUrl jdbc:postgresql://postgres:****@127.0.0.1:1/test has a user");
    }

    @Test
    void aPasswordWithASlashInTheMariaDbUrlAuthorityIsMaskedInThePieceTheDriverEchoes() throws Exception {
        // MariaDB Connector/J ends the host list at the first /, so "S3cret" is the port it cannot read
        Exception e = failedStart(real("jdbc:mariadb://root:S3cret/Pw2024@127.0.0.1:1/test"), "S3cret", "Pw2024");
        assertThat(e.getMessage()).contains("Incorrect port value : ****");
    }

    /**
     * Generated passwords hold the characters that end the parts of a URL (Base64 has {@code /}):
     * the drivers then read a piece of the password as a host, a port, the database or the query,
     * and echo that piece. Whole or in pieces, it shows nowhere.
     */
    @Test
    void aPasswordThatBreaksTheUrlSyntaxShowsNeitherWholeNorInPieces() throws Exception {
        for (String scheme : List.of("postgresql", "mariadb")) {
            for (char delimiter : "?#/@:;&,".toCharArray()) {
                String url = "jdbc:" + scheme + "://app:S3cret" + delimiter + "Pw2024@127.0.0.1:1/test";
                creationFailures.clear();
                LoomPoolDataSource ds = real(url);
                failedStart(ds, "S3cret", "Pw2024");
                assertThat(ds.getMaskedJdbcUrl()).as(url).isEqualTo("jdbc:" + scheme + "://app:****@127.0.0.1:1/test");
            }
        }
    }

    // ---- the password as a URL parameter, in the spellings of each driver ---------------------

    @Test
    void aPasswordAsUrlParameterIsMaskedInEverySpelling() throws Exception {
        for (String url : List.of(
                "jdbc:postgresql://127.0.0.1:1/test?user=u&password=" + SECRET,
                "jdbc:postgresql://127.0.0.1:1/test?user=u&sslmode=disable&sslpassword=" + SECRET,
                "jdbc:mariadb://127.0.0.1:1/test?user=u&PWD=" + SECRET,
                "jdbc:mariadb://127.0.0.1:1/test?user=u&keyStorePassword=" + SECRET + "&trustStorePassword=" + SECRET,
                "jdbc:mysql://127.0.0.1:1/test?user=u&password1=" + SECRET, // MySQL's multifactor passwords
                "jdbc:mysql://127.0.0.1:1/test?user=u&Passwd=" + SECRET + "&connectTimeout=3000")) {
            creationFailures.clear();
            SQLException e = failedStart(real(url));
            assertThat(e.getMessage()).as(url).contains("=****");
        }
    }

    // ---- a wrong password against the real servers --------------------------------------------

    @Test
    void aWrongPasswordForMariaDbIsNotEchoedFromAnySource() throws Exception {
        String url = TestDatabase.MARIADB.url();
        for (Consumer<LoomPoolDataSource> source : passwordSources()) {
            creationFailures.clear();
            LoomPoolDataSource ds = real(url);
            source.accept(ds);
            SQLException e = failedStart(ds);
            assertThat(e.getSQLState()).isEqualTo("28000"); // ER_ACCESS_DENIED_ERROR (1045)
        }
    }

    @Test
    void aRefusedPostgresLoginIsNotEchoedFromAnySource() throws Exception {
        // the test server trusts every password: a role that does not exist is refused instead
        String url = TestDatabase.POSTGRES.url().replace("user=postgres", "user=no_such_role_" + SECRET.length());
        for (Consumer<LoomPoolDataSource> source : passwordSources()) {
            creationFailures.clear();
            LoomPoolDataSource ds = real(url);
            source.accept(ds);
            SQLException e = failedStart(ds);
            assertThat(e.getSQLState()).isEqualTo("28000"); // invalid_authorization_specification
        }
    }

    private static List<Consumer<LoomPoolDataSource>> passwordSources() {
        return List.of(
                ds -> ds.setPassword(SECRET),
                ds -> ds.setDataSourceProperties(properties("password", SECRET)),
                ds -> ds.setCredentialsSupplier(() -> new Credentials(null, SECRET)));
    }

    private static Properties properties(String key, String value) {
        Properties p = new Properties();
        p.setProperty(key, value);
        return p;
    }

    // ---- a driver that echoes the password it was given (the stub) -----------------------------

    /** A failure such as a careless driver makes: the secret in the message, a cause, a suppressed and a next exception. */
    private static SQLNonTransientConnectionException echoing(String secret) {
        SQLNonTransientConnectionException e = new SQLNonTransientConnectionException(
                "login with password " + secret + " refused", "08004", 1045,
                new IOException("handshake sent '" + secret + "'"));
        e.addSuppressed(new IllegalStateException("retry with " + secret + " failed too"));
        e.setNextException(new SQLException("and again: " + secret, "08004"));
        return e;
    }

    @Test
    void aPasswordTheDriverEchoesIsMaskedFromEverySourceKeepingClassStateAndStack() throws Exception {
        List<Consumer<LoomPoolDataSource>> sources = List.of(
                ds -> ds.setPassword(SECRET),
                ds -> ds.setDataSourceProperties(properties("password", SECRET)),
                ds -> ds.setDataSourceProperties(properties("sslKeyPassword", SECRET)),
                ds -> ds.setCredentialsSupplier(() -> new Credentials("app", SECRET)),
                ds -> ds.setJdbcUrl(ds.getJdbcUrl() + "?user=app&password=" + SECRET));
        for (Consumer<LoomPoolDataSource> source : sources) {
            creationFailures.clear();
            LoomPoolDataSource ds = dataSource();
            source.accept(ds);
            ds.addPoolListener(new PoolListener() {
                @Override
                public void onCreationFailed(Throwable error) {
                    creationFailures.add(error);
                }
            });
            SQLNonTransientConnectionException original = echoing(SECRET);
            StubDriver.database(ds.getJdbcUrl().substring("jdbc:stub:".length())).failNextConnect(original);
            SQLException[] failure = new SQLException[1];
            String log = logOf(() -> {
                try (Connection c = ds.getConnection()) {
                    failure[0] = catchThrowableOfType(SQLException.class, () -> BindingTest.query(c, "SELECT 1"));
                }
            });
            SQLException e = failure[0];
            assertNoSecret(e, log);
            // the pool's exception, of the driver's kind, SQLState and code, naming the pool; the driver's masked beneath
            assertThat((Throwable) e).isInstanceOf(SQLNonTransientConnectionException.class);
            assertThat(e.getMessage()).startsWith("pool '" + ds.getPoolName() + "': could not open a connection (")
                    .endsWith("): login with password **** refused");
            assertThat(e.getSQLState()).isEqualTo("08004");
            assertThat(e.getErrorCode()).isEqualTo(1045);
            assertThat(Internals.isBroken(e)).isTrue();
            SQLException driver = (SQLException) e.getCause();
            assertThat((Throwable) driver).isInstanceOf(SQLNonTransientConnectionException.class)
                    .hasMessage("login with password **** refused");
            assertThat(driver.getSQLState()).isEqualTo("08004");
            assertThat(driver.getErrorCode()).isEqualTo(1045);
            assertThat(driver.getStackTrace()).isEqualTo(original.getStackTrace());
            assertThat(driver.getCause()).isInstanceOf(IOException.class).hasMessage("handshake sent '****'");
            assertThat(driver.getSuppressed()).singleElement().isInstanceOf(IllegalStateException.class)
                    .hasFieldOrPropertyWithValue("message", "retry with **** failed too");
            assertThat((Throwable) driver.getNextException()).hasMessage("and again: ****");
            assertThat(driver.getNextException().getSQLState()).isEqualTo("08004");
        }
    }

    @Test
    void aBackgroundRefillLogsTheFailureMasked() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setPassword(SECRET);
        ds.setMinSize(1);
        ds.setHealthcheckInterval(Duration.ofMillis(50));
        ds.addPoolListener(new PoolListener() {
            @Override
            public void onCreationFailed(Throwable error) {
                creationFailures.add(error);
            }
        });
        ds.start();
        String log;
        try (SecretLeaks.CapturedLog captured = SecretLeaks.CapturedLog.start()) {
            db.failNextConnect(echoing(SECRET));
            assertThat(ds.evictIdle()).isEqualTo(1); // the refill to minSize runs in the background
            eventually("the refill failed and was logged", () -> captured.text().contains("could not create a resource in the background"));
            log = captured.text();
        }
        assertThat(log).contains("could not create a resource in the background").contains("login with password **** refused");
        assertNoSecret(creationFailures.get(0), log);
    }

    @Test
    void anExceptionWithoutTheSecretReachesTheCallerAsTheDriverThrewIt() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setPassword(SECRET);
        SQLException refused = new SQLException("Connection refused", "08001", new IOException("no route"));
        db.failNextConnect(refused);
        try (Connection c = ds.getConnection()) {
            // not copied: the very instance the driver threw is the cause of the pool's, which names the pool
            assertThatThrownBy(() -> BindingTest.query(c, "SELECT 1"))
                    .hasMessageStartingWith("pool '" + ds.getPoolName() + "'")
                    .satisfies(e -> assertThat(e.getCause()).isSameAs(refused));
        }
    }
}
