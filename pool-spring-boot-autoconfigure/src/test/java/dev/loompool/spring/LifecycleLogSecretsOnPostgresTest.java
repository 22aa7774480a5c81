package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The DEBUG lifecycle lines of {@code dev.loompool.pool.<name>} (and every other line the pool
 * writes meanwhile) on the real PostgreSQL, with a password in the URL, a secret driver property
 * and a connectionInitSql with a secret literal: no line, message or stack trace shows one; the
 * added, reset, retired (with its reason) and housekeeping lines are all there.
 */
class LifecycleLogSecretsOnPostgresTest {

    private static final String URL_PASSWORD = "UrlPw7kq2";
    private static final String PROPERTY_SECRET = "SslPw3mz8";
    private static final String INIT_SECRET = "InitKey5vx1";
    private static final String SESSION_SECRET = "SessKey9tr4";

    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final Logger pools = (Logger) LoggerFactory.getLogger("dev.loompool.pool");
    private Level before;

    @BeforeEach
    void capture() {
        before = pools.getLevel();
        pools.setLevel(Level.DEBUG);
        lines.start();
        root.addAppender(lines);
    }

    @AfterEach
    void release() {
        root.detachAppender(lines);
        pools.setLevel(before);
    }

    private static String postgresUrl() {
        return System.getenv().getOrDefault("LOOMPOOL_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    }

    private String everything() {
        return lines.list.stream().map(e -> e.getLoggerName() + " " + e.getLevel() + " " + e.getFormattedMessage()
                + (e.getThrowableProxy() == null ? "" : "\n" + ThrowableProxyUtil.asString(e.getThrowableProxy())))
                .collect(Collectors.joining("\n"));
    }

    private List<String> lifecycle(String pool) {
        return lines.list.stream().filter(e -> e.getLoggerName().equals("dev.loompool.pool." + pool))
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    private static LoomPoolDataSource pool(String name) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(postgresUrl() + "&password=" + URL_PASSWORD);
        ds.setPoolName(name);
        Properties p = new Properties();
        p.setProperty("sslpassword", PROPERTY_SECRET);
        ds.setDataSourceProperties(p);
        ds.setMinSize(2);
        ds.setMaxSize(4);
        ds.setHealthcheckInterval(Duration.ofMillis(200));
        return ds;
    }

    @Test
    void theLifeOfAConnectionIsToldWithNoSecret() throws Exception {
        try (LoomPoolDataSource ds = pool("wt40b-life")) {
            ds.setConnectionInitSql("SET application_name = '" + INIT_SECRET + "'");
            ds.start();
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.execute("SET application_name = '" + SESSION_SECRET + "'");
                    s.execute("SET statement_timeout = '4321ms'");
                    s.execute("SELECT '" + SESSION_SECRET + "'::text");
                }
                c.commit();
            }
            // another connection: one killed by the server while idle, found broken
            Connection a = ds.getConnection();
            Connection b = ds.getConnection();
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            int pid;
            try (Statement s = a.createStatement(); var rs = s.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                pid = rs.getInt(1);
            }
            a.commit();
            a.close();
            try (Statement s = b.createStatement()) {
                s.execute("SELECT pg_terminate_backend(" + pid + ")");
            }
            b.commit();
            b.close();
            ds.setMaxSize(2); // shrink: surplus retired
            ds.evictIdle();
            Thread.sleep(1_000); // housekeeping ticks meanwhile (interval 200 ms)
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("SELECT 1");
            }
        }
        List<String> life = lifecycle("wt40b-life");
        System.out.println("[wt40b] lifecycle:\n" + String.join("\n", life));
        assertThat(life).anyMatch(l -> l.contains("added connection #"));
        assertThat(life).anyMatch(l -> l.contains("reset connection #") && l.contains("undid:"));
        assertThat(life).anyMatch(l -> l.contains("retired connection #") && l.contains("POOL_CLOSED"));
        assertThat(life).anyMatch(l -> l.contains("housekeeping ran"));
        String all = everything();
        assertThat(all).doesNotContain(URL_PASSWORD).doesNotContain(PROPERTY_SECRET).doesNotContain(INIT_SECRET)
                .doesNotContain(SESSION_SECRET);
    }

    /** The server quotes the value it could not read: a failing init SQL's literal must not reach the log. */
    @Test
    void aFailingInitSqlLeavesNoLiteralInAnyLine() throws Exception {
        try (LoomPoolDataSource ds = pool("wt40b-initfail")) {
            ds.setConnectionInitSql("SELECT CAST('" + INIT_SECRET + "' AS INT)");
            ds.setMinSize(0);
            ds.setInitializationFailTimeout(Duration.ofMillis(-1));
            ds.setAcquireTimeout(Duration.ofSeconds(2));
            ds.start();
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> {
                    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                        s.execute("SELECT 1");
                    }
                }).isInstanceOf(SQLException.class); // its message keeps the server's words, literal included, as HikariCP's cause does

            }
            Thread.sleep(500); // background refills, housekeeping
        }
        assertThat(everything()).as("the pool's own lines").contains("could not create a resource");
        assertThat(everything()).doesNotContain(INIT_SECRET).doesNotContain(URL_PASSWORD);
    }
}
