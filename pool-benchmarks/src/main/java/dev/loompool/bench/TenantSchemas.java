package dev.loompool.bench;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.postgresql.util.PGobject;

/**
 * Schema per tenant on PostgreSQL (issue 38): each request takes a connection, sets a tenant's
 * search path ({@code setSchema}, or {@code SET search_path}), inserts a value typed by the name
 * its tenant's schema gives a domain ({@code PGobject} of type {@code v_t}, a {@code numeric(12,s)}
 * whose scale differs from tenant to tenant), and closes. Four threads over a pool of 4; the
 * tenant is drawn per request. Reported per pool: requests per second, connections opened per
 * 1,000 requests in the measured window, and rows rounded by another tenant's type (pgjdbc's
 * per-connection cache of type names carried over from the last borrower: wrong data, no error).
 * The reference "one connection per request" is the cost of closing the connection after every
 * such request instead of reusing it.
 *
 * <p>{@code java -cp pool-benchmarks.jar dev.loompool.bench.TenantSchemas [quick|full] [tenants] [setSchema|sql]}
 */
public final class TenantSchemas {

    static final int THREADS = 4;
    private static final String PREFIX = "bench_tenant_";
    private static final BigDecimal VALUE = new BigDecimal("1.234");

    private TenantSchemas() {
    }

    public static void main(String[] args) throws Exception {
        Mode mode = args.length > 0 && args[0].equals("full") ? Mode.FULL : Mode.QUICK;
        int tenants = args.length > 1 ? Integer.parseInt(args[1]) : 16;
        boolean sql = args.length > 2 && args[2].equals("sql");
        create(tenants);
        try {
            System.out.printf("%d tenants, path by %s, %d threads over max %d, %s mode%n", tenants,
                    sql ? "SET search_path" : "setSchema", THREADS, THREADS, mode.name().toLowerCase());
            for (int round = 0; round < mode.rounds; round++) {
                for (PoolKind pool : new PoolKind[] {PoolKind.LOOMPOOL, PoolKind.HIKARI}) {
                    truncate(tenants);
                    DataSource ds = pool.open(new PoolKind.Settings(Postgres.URL, null, null, THREADS, THREADS,
                            Duration.ofSeconds(30)));
                    Trial t;
                    try {
                        t = Load.run(pool, mode, THREADS, false, () -> PoolKind.connectionsOpened(ds), () -> {
                            try (Connection c = ds.getConnection()) {
                                request(c, tenants, sql);
                            }
                        });
                    } finally {
                        PoolKind.close(ds);
                    }
                    report(pool.name(), t.perSecond(), t.openedPerThousand(), t.errors, tenants);
                }
                truncate(tenants);
                Trial perRequest = Load.run(PoolKind.LOOMPOOL, mode, THREADS, false, () -> {
                    try (Connection c = DriverManager.getConnection(Postgres.URL)) {
                        request(c, tenants, sql);
                    }
                });
                report("one connection per request", perRequest.perSecond(), 1000, perRequest.errors, tenants);
            }
        } finally {
            drop(tenants);
        }
    }

    private static void request(Connection c, int tenants, boolean sql) throws SQLException {
        String schema = PREFIX + ThreadLocalRandom.current().nextInt(tenants);
        if (sql) {
            try (Statement st = c.createStatement()) {
                st.execute("SET search_path TO " + schema);
            }
        } else {
            c.setSchema(schema);
        }
        PGobject v = new PGobject();
        v.setType("v_t");
        v.setValue(VALUE.toPlainString());
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO t (x) VALUES (?)")) {
            ps.setObject(1, v);
            ps.executeUpdate();
        }
    }

    /** Tenant k's domain keeps k % 4 decimals: a value stored under another tenant's type has another scale. */
    private static void create(int tenants) throws SQLException {
        drop(tenants);
        try (Connection c = DriverManager.getConnection(Postgres.URL); Statement st = c.createStatement()) {
            for (int k = 0; k < tenants; k++) {
                String s = PREFIX + k;
                st.execute("CREATE SCHEMA " + s);
                st.execute("CREATE DOMAIN " + s + ".v_t AS numeric(12," + (k % 4) + ")");
                st.execute("CREATE TABLE " + s + ".t (x " + s + ".v_t)");
            }
        }
    }

    private static void truncate(int tenants) throws SQLException {
        try (Connection c = DriverManager.getConnection(Postgres.URL); Statement st = c.createStatement()) {
            for (int k = 0; k < tenants; k++) {
                st.execute("TRUNCATE " + PREFIX + k + ".t");
            }
        }
    }

    private static void drop(int tenants) throws SQLException {
        try (Connection c = DriverManager.getConnection(Postgres.URL); Statement st = c.createStatement()) {
            for (int k = 0; k < tenants; k++) {
                st.execute("DROP SCHEMA IF EXISTS " + PREFIX + k + " CASCADE");
            }
        }
    }

    /** Rows not rounded to their tenant's scale: rounded by another tenant's type first. */
    private static long wrongRows(int tenants) throws SQLException {
        long wrong = 0;
        try (Connection c = DriverManager.getConnection(Postgres.URL); Statement st = c.createStatement()) {
            for (int k = 0; k < tenants; k++) {
                try (ResultSet rs = st.executeQuery("SELECT count(*) FROM " + PREFIX + k + ".t WHERE x <> round(" + VALUE + ", " + (k % 4) + ")")) {
                    rs.next();
                    wrong += rs.getLong(1);
                }
            }
        }
        return wrong;
    }

    private static void report(String pool, double perSecond, double openedPerThousand, long errors, int tenants)
            throws SQLException {
        System.out.printf("%-28s %8.0f req/s  %7.1f connections opened / 1,000 requests  %6d errors  %6d rows rounded by "
                + "another tenant's type%n", pool, perSecond, openedPerThousand, errors, wrongRows(tenants));
    }
}
