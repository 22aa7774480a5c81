package dev.loompool.jdbc.fuzz;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The defaults a pool is configured with (null: the driver's), which a returned connection must
 * get back; the plain reference gets them by the same JDBC calls right after it connects.
 */
record PoolDefaults(Integer isolation, Boolean readOnly, Boolean autoCommit, String catalog, String schema, String initSql) {

    static final PoolDefaults NONE = new PoolDefaults(null, null, null, null, null, null);

    /** Half the sequences run on the driver's defaults; the others on one to three of the pool's settings. */
    static PoolDefaults pick(SplittableRandom r, SeqTarget target) {
        if (r.nextBoolean()) {
            return NONE;
        }
        Integer isolation = null;
        Boolean readOnly = null;
        Boolean autoCommit = null;
        String catalog = null;
        String schema = null;
        String initSql = null;
        for (int n = 1 + r.nextInt(3); n > 0; n--) {
            switch (r.nextInt(6)) {
                case 0 -> isolation = new int[] {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ,
                    Connection.TRANSACTION_SERIALIZABLE}[r.nextInt(3)];
                case 1 -> readOnly = Boolean.TRUE;
                case 2 -> autoCommit = Boolean.FALSE;
                case 3 -> {
                    if (target.postgres()) {
                        schema = target.prefix + "s1";
                    } else {
                        catalog = target.prefix + "other";
                    }
                }
                case 4 -> initSql = target.postgres() ? "SET statement_timeout = 54321" : "SET @fz_init = 7";
                default -> initSql = target.postgres() ? "SET application_name = 'wt38d_init'" : "SET SESSION wait_timeout = 5432";
            }
        }
        return new PoolDefaults(isolation, readOnly, autoCommit, catalog, schema, initSql);
    }

    /** A pool of one connection with these defaults. */
    LoomPoolDataSource pool(SeqTarget target, String name) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(target.url());
        ds.setPoolName(name);
        ds.setMinSize(1);
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(3));
        if (isolation != null) {
            ds.setTransactionIsolation(switch (isolation) {
                case Connection.TRANSACTION_READ_COMMITTED -> "TRANSACTION_READ_COMMITTED";
                case Connection.TRANSACTION_REPEATABLE_READ -> "TRANSACTION_REPEATABLE_READ";
                default -> "TRANSACTION_SERIALIZABLE";
            });
        }
        ds.setReadOnly(readOnly);
        ds.setAutoCommit(autoCommit);
        ds.setCatalog(catalog);
        ds.setSchema(schema);
        ds.setConnectionInitSql(initSql);
        return ds;
    }

    /** A plain connection with the same defaults, set as the pool sets them on a new connection. */
    Connection plain(SeqTarget target) throws SQLException {
        Connection c = target.plain();
        if (initSql != null) {
            try (Statement s = c.createStatement()) {
                s.execute(initSql);
            }
        }
        if (isolation != null) {
            c.setTransactionIsolation(isolation);
        }
        if (readOnly != null) {
            c.setReadOnly(readOnly);
        }
        if (catalog != null) {
            c.setCatalog(catalog);
        }
        if (schema != null) {
            c.setSchema(schema);
        }
        if (autoCommit != null) { // last: the settings above are the session's, not a transaction's to roll back
            c.setAutoCommit(autoCommit);
        }
        return c;
    }

    /** Each smaller set of defaults: one setting left out (for shrinking). */
    List<PoolDefaults> smaller() {
        List<PoolDefaults> out = new ArrayList<>();
        if (isolation != null) {
            out.add(new PoolDefaults(null, readOnly, autoCommit, catalog, schema, initSql));
        }
        if (readOnly != null) {
            out.add(new PoolDefaults(isolation, null, autoCommit, catalog, schema, initSql));
        }
        if (autoCommit != null) {
            out.add(new PoolDefaults(isolation, readOnly, null, catalog, schema, initSql));
        }
        if (catalog != null) {
            out.add(new PoolDefaults(isolation, readOnly, autoCommit, null, schema, initSql));
        }
        if (schema != null) {
            out.add(new PoolDefaults(isolation, readOnly, autoCommit, catalog, null, initSql));
        }
        if (initSql != null) {
            out.add(new PoolDefaults(isolation, readOnly, autoCommit, catalog, schema, null));
        }
        return out;
    }

    @Override
    public String toString() {
        List<String> s = new ArrayList<>();
        if (isolation != null) {
            s.add("transactionIsolation " + isolation);
        }
        if (readOnly != null) {
            s.add("readOnly " + readOnly);
        }
        if (autoCommit != null) {
            s.add("autoCommit " + autoCommit);
        }
        if (catalog != null) {
            s.add("catalog " + catalog);
        }
        if (schema != null) {
            s.add("schema " + schema);
        }
        if (initSql != null) {
            s.add("connectionInitSql \"" + initSql + "\"");
        }
        return s.isEmpty() ? "the driver's defaults" : String.join(", ", s);
    }
}
