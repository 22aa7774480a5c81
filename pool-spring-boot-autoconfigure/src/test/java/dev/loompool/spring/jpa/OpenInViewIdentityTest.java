package dev.loompool.spring.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.TestDatabase;
import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Open-in-view on PostgreSQL (issue 28): one entity manager spans the request, as
 * OpenEntityManagerInViewInterceptor binds it, and Spring's Hibernate setup holds its JDBC
 * connection for the session's whole life (DELAYED_ACQUISITION_AND_HOLD). An IDENTITY insert runs
 * in a transaction; once that commits, the lazy loads and the rest of the request run outside any
 * transaction. Between transactions the handle must hold no physical connection: nothing of the
 * committed work is left for the session to keep.
 */
class OpenInViewIdentityTest {

    @Test
    void anIdentityInsertLeavesNoConnectionBoundAfterItsTransactionCommits() throws Exception {
        String schema = "pins_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        }
        try {
            JpaRequests.withApplication(TestDatabase.POSTGRES.url() + "&currentSchema=" + schema, 3, app -> {
                LoomPoolDataSource ds = app.ds();
                TransactionTemplate tx = app.tx();
                app.request(r -> {
                    EntityManager em = r.em();
                    Long id = tx.execute(s -> {
                        Owner o = new Owner("owner");
                        em.persist(o); // IDENTITY: the insert runs now, with RETURN_GENERATED_KEYS
                        em.persist(new Pet("pet", o));
                        return o.id;
                    });
                    assertUnbound(ds, "after the transaction with the IDENTITY inserts committed");

                    em.clear();
                    Owner o = em.find(Owner.class, id); // outside any transaction
                    assertThat(o.pets).hasSize(1); // lazy load
                    assertUnbound(ds, "after a find and a lazy load outside a transaction");
                    assertThat(em.createNativeQuery("SELECT name FROM owners").getResultList()).hasSize(1);
                    assertUnbound(ds, "after a native query outside a transaction");

                    tx.executeWithoutResult(s -> {
                        Owner other = new Owner("other");
                        em.persist(other);
                        em.persist(new Pet("other's", other));
                    });
                    em.clear();
                    java.util.List<Owner> owners = em.createQuery("select o from Owner o", Owner.class).getResultList();
                    assertThat(owners).hasSize(2);
                    assertThat(owners.get(0).pets).hasSize(1); // a batch fetch: both owners' pets, = any(?) with an array
                    assertUnbound(ds, "after a batch fetch outside a transaction (it binds an array)");

                    tx.executeWithoutResult(s -> em.persist(new Pet("second", em.find(Owner.class, id))));
                    assertUnbound(ds, "after a second transaction committed");
                    Thread.sleep(20); // the rest of the request: rendering the view
                    assertUnbound(ds, "while the request renders");
                });
                assertUnbound(ds, "after the request");
            }, "spring.jpa.properties.hibernate.default_batch_fetch_size=16");
        } finally {
            try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
                st.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    private static void assertUnbound(LoomPoolDataSource ds, String when) {
        assertThat(ds.getBoundHandles()).as("handles holding a physical connection %s", when).isEmpty();
        assertThat(ds.getPinnedConnections().values()).as("pinned connections %s", when).allMatch(n -> n == 0);
    }
}
