package dev.loompool.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

/**
 * P5: a pgbench-like transaction (3 updates, 1 select, 1 insert) through Spring's JdbcTemplate and
 * {@code @Transactional}, on real PostgreSQL, 16 platform threads over 10 connections.
 */
final class P5Oltp implements Scenario {

    static final int BRANCHES = 1;
    static final int TELLERS = 10;
    static final int ACCOUNTS = 10_000;

    @Override
    public String id() {
        return "P5";
    }

    @Override
    public String title() {
        return "PostgreSQL OLTP through Spring JdbcTemplate + @Transactional (pgbench-like), 16 threads, max 10";
    }

    /** pgbench's C client running the same transaction on 10 connections: tps, measured at the first trial of the run. */
    private Double ceiling;
    /** The same transaction in plain JDBC on 10 held pgjdbc connections, 10 threads, no pool, no Spring: tps. */
    private double jdbcFloor = Double.NaN;

    @Override
    public String target() {
        return ">= 0.97x pgbench's C client running the same transaction on 10 connections (a quiet run); >= HikariCP's";
    }

    double ceiling() {
        return ceiling == null ? Double.NaN : ceiling;
    }

    /** The transaction of {@link Teller#transact} as a pgbench script. */
    static String pgbenchScript() {
        return "\\set aid random(1, " + ACCOUNTS + ")\n\\set tid random(1, " + TELLERS + ")\n\\set bid random(1, " + BRANCHES
                + ")\n\\set delta random(-5000, 5000)\nBEGIN;\n"
                + "UPDATE bench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"
                + "SELECT abalance FROM bench_accounts WHERE aid = :aid;\n"
                + "UPDATE bench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n"
                + "UPDATE bench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;\n"
                + "INSERT INTO bench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n"
                + "END;\n";
    }

    @Override
    public Trial run(PoolKind pool, Mode mode) throws Exception {
        if (ceiling == null && Postgres.pgbenchFound()) {
            ceiling = Postgres.pgbench(pgbenchScript(), 10, Postgres.seconds(mode));
            jdbcFloor = jdbcFloor(mode).perSecond();
            System.out.printf("P5 ceiling: pgbench %,.0f tps; plain JDBC on 10 held connections %,.0f tps%n", ceiling, jdbcFloor);
        }
        DataSource ds = pool.open(new PoolKind.Settings(Postgres.URL, null, null, 10, 10, Duration.ofSeconds(60)));
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.registerBean(DataSource.class, () -> ds);
            context.register(SpringSetup.class);
            context.refresh();
            Teller teller = context.getBean(Teller.class);
            Trial t = Load.run(pool, mode, 16, false, () -> PoolKind.connectionsOpened(ds), () -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                teller.transact(r.nextInt(1, ACCOUNTS + 1), r.nextInt(1, TELLERS + 1), r.nextInt(1, BRANCHES + 1),
                        r.nextInt(-5000, 5001));
            });
            if (ceiling != null) {
                t.extra.put("x pgbench", Math.round(t.perSecond() / ceiling * 1000) / 1000.0);
                t.extra.put("x JDBC floor", Math.round(t.perSecond() / jdbcFloor * 1000) / 1000.0);
            }
            return t;
        } finally {
            PoolKind.close(ds);
        }
    }

    /**
     * What the JVM and pgjdbc reach without a pool or Spring: the transaction in plain JDBC, 10
     * threads each on its own connection held for the whole run (as pgbench's 10 clients).
     */
    private static Trial jdbcFloor(Mode mode) throws Exception {
        List<Connection> all = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Connection c = DriverManager.getConnection(Postgres.URL);
            c.setAutoCommit(false);
            all.add(c);
        }
        AtomicInteger next = new AtomicInteger();
        // A harness-side ThreadLocal, not the pool's: it only hands each load thread its connection.
        ThreadLocal<Connection> mine = ThreadLocal.withInitial(() -> all.get(next.getAndIncrement()));
        try {
            return Load.run(PoolKind.LOOMPOOL, mode, 10, false, () -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                Teller.transact(mine.get(), r.nextInt(1, ACCOUNTS + 1), r.nextInt(1, TELLERS + 1), r.nextInt(1, BRANCHES + 1),
                        r.nextInt(-5000, 5001));
            });
        } finally {
            for (Connection c : all) {
                c.close();
            }
        }
    }

    /** Creates and fills the pgbench-like tables once per run, on a plain connection. */
    static void prepareTables() throws Exception {
        try (var c = java.sql.DriverManager.getConnection(Postgres.URL); var st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS bench_branches (bid INT PRIMARY KEY, bbalance INT NOT NULL)");
            st.execute("CREATE TABLE IF NOT EXISTS bench_tellers (tid INT PRIMARY KEY, bid INT NOT NULL, tbalance INT NOT NULL)");
            st.execute("CREATE TABLE IF NOT EXISTS bench_accounts (aid INT PRIMARY KEY, bid INT NOT NULL, "
                    + "abalance INT NOT NULL, filler CHAR(84))");
            st.execute("CREATE TABLE IF NOT EXISTS bench_history (tid INT, bid INT, aid INT, delta INT, mtime TIMESTAMP, filler CHAR(22))");
            st.execute("INSERT INTO bench_branches SELECT b, 0 FROM generate_series(1, " + BRANCHES + ") b ON CONFLICT DO NOTHING");
            st.execute("INSERT INTO bench_tellers SELECT t, 1 + (t - 1) % " + BRANCHES + ", 0 FROM generate_series(1, "
                    + TELLERS + ") t ON CONFLICT DO NOTHING");
            st.execute("INSERT INTO bench_accounts SELECT a, 1 + (a - 1) % " + BRANCHES + ", 0, '' FROM generate_series(1, "
                    + ACCOUNTS + ") a ON CONFLICT DO NOTHING");
            st.execute("TRUNCATE bench_history");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class SpringSetup {

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        Teller teller(JdbcTemplate jdbc) {
            return new Teller(jdbc);
        }
    }

    /** The pgbench TPC-B-like transaction. */
    static class Teller {

        private final JdbcTemplate jdbc;

        Teller(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        public int transact(int aid, int tid, int bid, int delta) {
            jdbc.update("UPDATE bench_accounts SET abalance = abalance + ? WHERE aid = ?", delta, aid);
            Integer balance = jdbc.queryForObject("SELECT abalance FROM bench_accounts WHERE aid = ?", Integer.class, aid);
            jdbc.update("UPDATE bench_tellers SET tbalance = tbalance + ? WHERE tid = ?", delta, tid);
            jdbc.update("UPDATE bench_branches SET bbalance = bbalance + ? WHERE bid = ?", delta, bid);
            jdbc.update("INSERT INTO bench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)",
                    tid, bid, aid, delta);
            return balance == null ? 0 : balance;
        }

        /** The same transaction in plain JDBC on {@code c} (autocommit off), committed. */
        static void transact(Connection c, int aid, int tid, int bid, int delta) throws SQLException {
            try (PreparedStatement a = c.prepareStatement("UPDATE bench_accounts SET abalance = abalance + ? WHERE aid = ?");
                    PreparedStatement b = c.prepareStatement("SELECT abalance FROM bench_accounts WHERE aid = ?");
                    PreparedStatement t = c.prepareStatement("UPDATE bench_tellers SET tbalance = tbalance + ? WHERE tid = ?");
                    PreparedStatement br = c.prepareStatement("UPDATE bench_branches SET bbalance = bbalance + ? WHERE bid = ?");
                    PreparedStatement h = c.prepareStatement(
                            "INSERT INTO bench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)")) {
                a.setInt(1, delta);
                a.setInt(2, aid);
                a.executeUpdate();
                b.setInt(1, aid);
                try (ResultSet rs = b.executeQuery()) {
                    rs.next();
                }
                t.setInt(1, delta);
                t.setInt(2, tid);
                t.executeUpdate();
                br.setInt(1, delta);
                br.setInt(2, bid);
                br.executeUpdate();
                h.setInt(1, tid);
                h.setInt(2, bid);
                h.setInt(3, aid);
                h.setInt(4, delta);
                h.executeUpdate();
                c.commit();
            }
        }
    }
}
