package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The reasons of the DEBUG "retired" lines of {@code dev.loompool.pool.<name>} on the real
 * PostgreSQL, one cause at a time, and that no connection goes without its line: each connection
 * added is retired with a line by the end (every one closed at the close, lent ones included).
 */
class LifecycleLogReasonsOnPostgresTest {

    private static final Pattern ADDED = Pattern.compile("added connection #(\\d+)");
    private static final Pattern RETIRED = Pattern.compile("retired connection #(\\d+) after \\d+ s: (.*)");

    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final Logger pools = (Logger) LoggerFactory.getLogger("dev.loompool.pool");
    private Level before;

    @BeforeEach
    void capture() {
        before = pools.getLevel();
        pools.setLevel(Level.DEBUG);
        lines.start();
        pools.addAppender(lines);
    }

    @AfterEach
    void release() {
        pools.detachAppender(lines);
        pools.setLevel(before);
    }

    private static LoomPoolDataSource pool(String name, int min, int max) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(System.getenv().getOrDefault("LOOMPOOL_TEST_POSTGRES_URL",
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        ds.setPoolName(name);
        ds.setMinSize(min);
        ds.setMaxSize(max);
        return ds;
    }

    private List<String> messages(String pool) {
        return lines.list.stream().filter(e -> e.getLoggerName().equals("dev.loompool.pool." + pool))
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** Connection number to its retirement words, in order. */
    private List<String> retired(String pool) {
        List<String> out = new ArrayList<>();
        for (String m : messages(pool)) {
            Matcher r = RETIRED.matcher(m);
            if (r.find()) {
                out.add("#" + r.group(1) + " " + r.group(2));
            }
        }
        return out;
    }

    private void everyAddedIsRetired(String pool) throws InterruptedException {
        // a connection the housekeeper was checking at the close goes when its check ends: its line may come after
        eventually("a retired line for each added connection", () -> messages(pool).stream()
                .filter(m -> RETIRED.matcher(m).find()).count() >= messages(pool).stream().filter(m -> ADDED.matcher(m).find()).count());
        List<String> added = new ArrayList<>();
        List<String> gone = new ArrayList<>();
        for (String m : messages(pool)) {
            Matcher a = ADDED.matcher(m);
            if (a.find()) {
                added.add(a.group(1));
            }
            Matcher r = RETIRED.matcher(m);
            if (r.find()) {
                gone.add(r.group(1));
            }
        }
        assertThat(added).as("connections added").isNotEmpty().doesNotHaveDuplicates();
        assertThat(gone).as("each added connection retired once, with its line").containsExactlyInAnyOrderElementsOf(added);
    }

    private static Connection hold(LoomPoolDataSource ds) throws SQLException {
        Connection c = ds.getConnection();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("SELECT 1");
        }
        return c;
    }

    private static int pid(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void aLowerMaxSizeRetiresTheSurplusAsTheyComeBackSayingSo() throws Exception {
        String name = "wt40b-shrunk";
        try (LoomPoolDataSource ds = pool(name, 0, 4)) {
            List<Connection> held = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                held.add(hold(ds));
            }
            ds.setMaxSize(2);
            for (Connection c : held) {
                c.commit();
                c.close();
            }
            eventually("two left", () -> ds.getPool().stats().total() == 2);
            assertThat(retired(name)).hasSize(2).allMatch(l -> l.endsWith("the pool shrunk (maxSize lowered) (POOL_SHRUNK)"));
        }
        everyAddedIsRetired(name);
        assertThat(retired(name)).filteredOn(l -> l.endsWith("(POOL_CLOSED)")).hasSize(2);
    }

    @Test
    void aConnectionTheServerKilledWhileLentIsRetiredAsBroken() throws Exception {
        String name = "wt40b-broken";
        try (LoomPoolDataSource ds = pool(name, 0, 2)) {
            Connection victim = hold(ds);
            int pid = pid(victim);
            try (Connection killer = hold(ds); Statement s = killer.createStatement()) {
                s.execute("SELECT pg_terminate_backend(" + pid + ")");
                killer.commit();
            }
            assertThatThrownBy(() -> {
                try (Statement s = victim.createStatement()) {
                    s.execute("SELECT 1");
                }
            }).isInstanceOf(SQLException.class);
            victim.close();
            eventually("the broken one retired", () -> !retired(name).isEmpty());
            assertThat(retired(name)).hasSize(1).allMatch(l -> l.contains("broken"), "says broken");
        }
        everyAddedIsRetired(name);
    }

    @Test
    void aConnectionLentAtTheCloseIsAbortedAndRetiredWithItsLine() throws Exception {
        String name = "wt40b-lentclose";
        LoomPoolDataSource ds = pool(name, 1, 2);
        Connection lent = hold(ds);
        Connection returned = hold(ds);
        returned.commit();
        returned.close();
        eventually("one idle", () -> ds.getPool().stats().idle() == 1);
        ds.close(); // aborts the lent one (PoolCloseAborts): both go now
        assertThat(retired(name)).as("the idle one and the lent one, at the close").hasSize(2)
                .allMatch(l -> l.endsWith("the pool closed (POOL_CLOSED)"));
        assertThatThrownBy(() -> {
            try (Statement s = lent.createStatement()) {
                s.execute("SELECT 1");
            }
        }).isInstanceOf(SQLException.class);
        lent.close();
        assertThat(retired(name)).as("no second line for the lent one").hasSize(2);
        everyAddedIsRetired(name);
    }

    @Test
    void anIdleTimeoutRetiresTheSurplusAboveMinSize() throws Exception {
        String name = "wt40b-idle";
        try (LoomPoolDataSource ds = pool(name, 1, 3)) {
            ds.setIdleTimeout(Duration.ofSeconds(1));
            ds.setHealthcheckInterval(Duration.ofMillis(200));
            List<Connection> held = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                held.add(hold(ds));
            }
            for (Connection c : held) {
                c.commit();
                c.close();
            }
            eventually("back to min", () -> ds.getPool().stats().total() == 1);
            assertThat(retired(name)).hasSize(2).allMatch(l -> l.contains("idle timeout"), "says idle timeout");
        }
        everyAddedIsRetired(name);
    }
}
