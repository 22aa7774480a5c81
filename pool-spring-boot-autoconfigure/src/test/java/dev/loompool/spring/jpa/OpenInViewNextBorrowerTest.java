package dev.loompool.spring.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.TestDatabase;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Open-in-view with one connection (issue 28): request A holds its entity manager for the whole
 * request but, between its transactions, no physical connection; request B borrows that same
 * connection meanwhile. Whatever A did — an IDENTITY insert, a SERIALIZABLE or read-only
 * transaction (Spring sets and resets them on the JDBC connection), a transaction that flushed and
 * then threw — B must see a fresh session: default isolation, read-write, no transaction of A's
 * open, not A's rolled-back row, and not A's generated id through lastval() / LAST_INSERT_ID().
 * With HikariCP, A would hold the connection for the whole request and B would wait.
 */
class OpenInViewNextBorrowerTest {

    @Test
    void postgresTheNextBorrowerSeesAFreshSession() throws Exception {
        String schema = "atkjpa_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        }
        try {
            nextBorrowerSeesAFreshSession(TestDatabase.POSTGRES.url() + "&currentSchema=" + schema,
                    "select current_setting('transaction_isolation') || '/' || current_setting('transaction_read_only')"
                            + " || '/' || coalesce(pg_current_xact_id_if_assigned()::text, 'none')",
                    "read committed/off/none", "select lastval()");
        } finally {
            try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
                st.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    @Test
    void mariaDbTheNextBorrowerSeesAFreshSession() throws Exception {
        String db = "atkjpa_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection admin = TestDatabase.MARIADB.admin(); Statement st = admin.createStatement()) {
            st.execute("CREATE DATABASE " + db);
        }
        try {
            nextBorrowerSeesAFreshSession("jdbc:mariadb://" + hostOf(TestDatabase.MARIADB.url()) + "/" + db + "?user=root",
                    "select concat(@@session.tx_isolation, '/', @@session.tx_read_only, '/', @@in_transaction)",
                    "REPEATABLE-READ/OFF/0", "select last_insert_id()");
        } finally {
            try (Connection admin = TestDatabase.MARIADB.admin(); Statement st = admin.createStatement()) {
                st.execute("DROP DATABASE " + db);
            }
        }
    }

    /**
     * The comparison: HikariCP lends the connection for the session's whole life, so under
     * open-in-view request B cannot borrow it between A's transactions at all (it times out).
     */
    @Test
    void hikariHoldsTheConnectionForTheWholeRequest() throws Exception {
        String schema = "atkjpa_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        }
        try {
            com.zaxxer.hikari.HikariDataSource[] hikari = new com.zaxxer.hikari.HikariDataSource[1];
            JpaRequests.withApplication(() -> {
                com.zaxxer.hikari.HikariDataSource ds = new com.zaxxer.hikari.HikariDataSource();
                ds.setJdbcUrl(TestDatabase.POSTGRES.url() + "&currentSchema=" + schema);
                ds.setMaximumPoolSize(1);
                ds.setConnectionTimeout(1000);
                hikari[0] = ds;
                return ds;
            }, context -> {
                var app = new JpaRequests.App(null, context.getBean(jakarta.persistence.EntityManagerFactory.class),
                        new TransactionTemplate(context.getBean(org.springframework.transaction.PlatformTransactionManager.class)));
                app.request(a -> {
                    a.tx().executeWithoutResult(s -> a.em().persist(new Owner("a's")));
                    assertThat(hikari[0].getHikariPoolMXBean().getActiveConnections()).as("lent between A's transactions").isEqualTo(1);
                    String b;
                    try {
                        b = otherRequest(app, r -> state(r, "select 1"));
                    } catch (java.util.concurrent.ExecutionException e) {
                        b = "timed out";
                    }
                    assertThat(b).isEqualTo("timed out");
                });
            });
        } finally {
            try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
                st.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    private static String hostOf(String url) {
        String rest = url.substring("jdbc:mariadb://".length());
        return rest.substring(0, rest.indexOf('/'));
    }

    private void nextBorrowerSeesAFreshSession(String url, String stateSql, String fresh, String lastIdSql) {
        JpaRequests.withApplication(url, 1, app -> app.request(a -> {
            EntityManager em = a.em();
            Long id = a.tx().execute(s -> {
                Owner o = new Owner("a's");
                em.persist(o); // IDENTITY
                return o.id;
            });
            String lastId = otherRequest(app, b -> {
                try {
                    Object v = b.em().createNativeQuery(lastIdSql).getSingleResult();
                    return "read " + v;
                } catch (PersistenceException e) {
                    return "refused " + sqlState(e);
                }
            });
            assertThat(lastId).as("B's read of the last generated id").isNotEqualTo("read " + id);
            assertThat(otherRequest(app, b -> state(b, stateSql))).as("B after A's IDENTITY insert").isEqualTo(fresh);

            TransactionTemplate serializable = new TransactionTemplate(a.tx().getTransactionManager());
            serializable.setIsolationLevel(TransactionDefinition.ISOLATION_SERIALIZABLE);
            serializable.executeWithoutResult(s -> em.find(Owner.class, id));
            assertThat(otherRequest(app, b -> state(b, stateSql))).as("B after A's SERIALIZABLE transaction").isEqualTo(fresh);
            em.clear();
            assertThat(em.find(Owner.class, id).pets).isEmpty(); // A's lazy load outside the transaction
            assertThat(otherRequest(app, b -> state(b, stateSql))).as("B after A's lazy load").isEqualTo(fresh);

            TransactionTemplate readOnly = new TransactionTemplate(a.tx().getTransactionManager());
            readOnly.setReadOnly(true);
            readOnly.executeWithoutResult(s -> em.createQuery("select o from Owner o", Owner.class).getResultList());
            assertThat(otherRequest(app, b -> state(b, stateSql))).as("B after A's read-only transaction").isEqualTo(fresh);
            assertThat(otherRequest(app, b -> b.tx().execute(s -> {
                Owner o = new Owner("b's");
                b.em().persist(o);
                return "wrote " + (o.id != null);
            }))).as("B writes after A's read-only transaction").isEqualTo("wrote true");

            try {
                a.tx().executeWithoutResult(s -> {
                    em.persist(new Owner("doomed"));
                    em.flush();
                    throw new IllegalStateException("the request fails half way");
                });
            } catch (IllegalStateException expected) {
                // Spring rolled back
            }
            assertThat(otherRequest(app, b -> state(b, stateSql))).as("B after A's failed transaction").isEqualTo(fresh);
            assertThat(otherRequest(app, b -> String.valueOf(b.em()
                    .createQuery("select count(o) from Owner o where o.name = 'doomed'", Long.class).getSingleResult())))
                    .as("A's rolled back row, seen by B").isEqualTo("0");
            assertThat(state(a, stateSql)).as("A itself after its failed transaction").isEqualTo(fresh);
            assertThat(a.bound()).as("A between transactions").isEmpty();
        }));
    }

    private static String state(JpaRequests.Request r, String stateSql) {
        return String.valueOf(r.em().createNativeQuery(stateSql).getSingleResult());
    }

    private static String sqlState(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                return s.getSQLState();
            }
        }
        return e.toString();
    }

    interface BBody {
        String run(JpaRequests.Request b) throws Exception;
    }

    /** Request B, on another thread, while A's thread waits between its transactions. */
    private static String otherRequest(JpaRequests.App app, BBody body) throws Exception {
        String[] out = new String[1];
        CompletableFuture.runAsync(() -> app.request(b -> out[0] = body.run(b))).get(30, TimeUnit.SECONDS);
        return out[0];
    }
}
