package dev.loompool.spring.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.PinReason;
import dev.loompool.jdbc.TestDatabase;
import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue 28, the paths of a real JPA application beyond IDENTITY inserts and batch fetches, under
 * open-in-view on PostgreSQL: which of them keep the request's connection bound between
 * transactions, and by which reason. Those that need nothing after their statement or transaction
 * must leave the handle unbound; those that hold say why (each is needed, or a known limit).
 */
class OpenInViewPathsTest {

    private static void withPostgres(JpaRequests.Body body) throws Exception {
        String schema = "atkjpa_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
            st.execute("CREATE FUNCTION " + schema + ".atkjpa_bump(x int) RETURNS int LANGUAGE sql VOLATILE AS 'select x + 1'");
            st.execute("CREATE FUNCTION " + schema + ".atkjpa_twice(x int) RETURNS int LANGUAGE sql IMMUTABLE AS 'select x * 2'");
        }
        try {
            JpaRequests.withApplication(TestDatabase.POSTGRES.url() + "&currentSchema=" + schema, 2,
                    app -> app.request(body), "spring.jpa.properties.hibernate.jdbc.batch_size=5",
                    "spring.jpa.properties.hibernate.order_inserts=true");
        } finally {
            try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
                st.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    @Test
    void theCommonPathsLeaveNothingBoundBetweenTransactions() throws Exception {
        withPostgres(r -> {
            EntityManager em = r.em();
            Long id = r.tx().execute(s -> {
                Doc d = new Doc("first", null);
                em.persist(d); // SEQUENCE, pooled: nextval inside the transaction
                return d.id;
            });
            assertUnbound(r, "after a SEQUENCE insert committed");
            r.tx().executeWithoutResult(s -> em.find(Doc.class, id).title = "changed");
            assertUnbound(r, "after a @Version update");
            r.tx().executeWithoutResult(s -> {
                for (int i = 0; i < 12; i++) {
                    em.persist(new Doc("b" + i, null)); // batched by 5, nextval every 5 ids
                }
            });
            assertUnbound(r, "after batched inserts");
            em.clear();
            assertThat(em.find(Doc.class, id).titleLength).isEqualTo(7); // @Formula, outside a transaction
            assertUnbound(r, "after a find with a @Formula");
            assertThat(em.createQuery("select count(d) from Doc d", Long.class).getSingleResult()).isEqualTo(13);
            assertThat(em.createQuery("select d from Doc d order by d.id", Doc.class).setFirstResult(2).setMaxResults(3)
                    .getResultList()).hasSize(3);
            assertUnbound(r, "after a page and its count query");
            assertThat(em.createQuery("select new map(d.id as id, d.title as t) from Doc d", Map.class).getResultList()).hasSize(13);
            assertUnbound(r, "after a projection");
            assertThat(em.createNativeQuery("select atkjpa_twice(3)").getSingleResult()).isEqualTo(6);
            assertUnbound(r, "after a native query calling an immutable function");
            r.tx().executeWithoutResult(s -> {
                try (var stream = em.createQuery("select d from Doc d", Doc.class).getResultStream()) {
                    assertThat(stream.count()).isEqualTo(13);
                }
            });
            assertUnbound(r, "after a streamed query in a transaction");
            TransactionTemplate readOnly = new TransactionTemplate(r.tx().getTransactionManager());
            readOnly.setReadOnly(true);
            readOnly.executeWithoutResult(s -> em.createQuery("select d from Doc d", Doc.class).getResultList());
            assertUnbound(r, "after a read-only transaction");
            TransactionTemplate serializable = new TransactionTemplate(r.tx().getTransactionManager());
            serializable.setIsolationLevel(TransactionDefinition.ISOLATION_SERIALIZABLE);
            serializable.executeWithoutResult(s -> em.createQuery("select d from Doc d", Doc.class).getResultList());
            assertUnbound(r, "after a SERIALIZABLE transaction");
            assertThat(em.createNativeQuery("select current_setting('transaction_isolation')").getSingleResult())
                    .as("isolation of the next statement outside a transaction").isEqualTo("read committed");
            try {
                r.tx().executeWithoutResult(s -> {
                    em.persist(new Doc("doomed", null));
                    em.flush();
                    throw new IllegalStateException("the request fails half way");
                });
            } catch (IllegalStateException expected) {
                // rolled back by Spring
            }
            assertUnbound(r, "after a transaction that flushed and threw");
        });
    }

    /**
     * {@code nextval} outside a transaction (a persist outside one under open-in-view, once the
     * pooled optimizer's block is used up) keeps the connection for the handle's next statement:
     * the STATEMENT_VALUE rule, so that {@code currval()} after it works as on the plain driver.
     * Needed for that idiom only (a later read on another binding is refused, never answered with
     * another borrower's value); it ends at the next statement, not at the request's end.
     */
    @Test
    void nextvalOutsideATransactionHoldsOnlyUntilTheNextStatement() throws Exception {
        withPostgres(r -> {
            EntityManager em = r.em();
            em.persist(new Doc("outside", null)); // select nextval('doc_seq'), in autocommit
            assertThat(r.bound()).singleElement().satisfies(h -> assertThat(h.pins()).containsExactly(PinReason.STATEMENT_VALUE));
            assertThat(em.createQuery("select count(d) from Doc d", Long.class).getSingleResult()).isZero();
            assertUnbound(r, "after the next statement");
        });
    }

    /** A volatile function may change the session: SESSION_STATE until the request ends. Needed. */
    @Test
    void aVolatileFunctionHoldsTheConnectionUntilTheRequestEnds() throws Exception {
        withPostgres(r -> {
            assertThat(r.em().createNativeQuery("select atkjpa_bump(3)").getSingleResult()).isEqualTo(4);
            assertThat(r.bound()).singleElement().satisfies(h -> assertThat(h.pins()).contains(PinReason.SESSION_STATE));
        });
    }

    /**
     * Known limit: a {@code @Lob} (PostgreSQL {@code oid}) read in a transaction. Hibernate reads it
     * through {@code getBlob} and copies the bytes at once, but the Blob the result set handed out
     * pins EXPLICIT until the handle closes, so the connection stays bound for the rest of the
     * request. pgjdbc's large objects work only inside a transaction (in autocommit mode they throw
     * "Large Objects may not be used in auto-commit mode", with or without the pool) and a Blob
     * already read holds a descriptor the server closed at commit; only a Blob never touched in its
     * transaction is still usable in a later one on the same connection.
     */
    @Test
    void aLobReadInATransactionHoldsTheConnectionForTheRestOfTheRequest() throws Exception {
        withPostgres(r -> {
            EntityManager em = r.em();
            Long id = r.tx().execute(s -> {
                Doc d = new Doc("with body", new byte[] {1, 2, 3});
                em.persist(d);
                return d.id;
            });
            assertUnbound(r, "after a LOB was written");
            em.clear();
            Doc d = r.tx().execute(s -> em.find(Doc.class, id));
            assertThat(d.body).containsExactly(1, 2, 3);
            assertThat(r.bound()).singleElement().satisfies(h -> assertThat(h.pins()).containsExactly(PinReason.EXPLICIT));
        });
    }

    /**
     * MariaDB: Hibernate's IDENTITY insert reads the id through getGeneratedKeys (the OK packet's
     * last insert id), and an INSERT without RETURNING keeps the connection for the next statement
     * (STATEMENT_VALUE: a {@code LAST_INSERT_ID()} after it must read this handle's value). Inside
     * a transaction the commit ends that; outside one Hibernate 7 delays the insert (to a flush that
     * never comes without a transaction), so nothing runs and nothing holds.
     */
    @Test
    void mariaDbIdentityInsertsHoldNothingAfterCommit() throws Exception {
        String db = "atkjpa_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection admin = TestDatabase.MARIADB.admin(); Statement st = admin.createStatement()) {
            st.execute("CREATE DATABASE " + db);
        }
        try {
            String url = TestDatabase.MARIADB.url();
            String host = url.substring("jdbc:mariadb://".length(), url.indexOf('/', "jdbc:mariadb://".length()));
            JpaRequests.withApplication("jdbc:mariadb://" + host + "/" + db + "?user=root", 2, app -> app.request(r -> {
                EntityManager em = r.em();
                Long id = r.tx().execute(s -> {
                    Owner o = new Owner("in a transaction");
                    em.persist(o);
                    em.persist(new Pet("pet", o));
                    return o.id;
                });
                assertThat(id).isNotNull();
                assertUnbound(r, "after IDENTITY inserts committed");
                Owner outside = new Owner("outside");
                em.persist(outside); // outside a transaction Hibernate delays even an IDENTITY insert
                assertThat(outside.id).isNull();
                assertUnbound(r, "after a persist outside a transaction");
                em.clear();
                assertThat(em.find(Owner.class, id).pets).hasSize(1);
                assertUnbound(r, "after the next statements");
            }));
        } finally {
            try (Connection admin = TestDatabase.MARIADB.admin(); Statement st = admin.createStatement()) {
                st.execute("DROP DATABASE " + db);
            }
        }
    }

    static void assertUnbound(JpaRequests.Request r, String when) {
        assertThat(r.bound()).as("handles holding a physical connection %s", when).isEmpty();
    }
}
