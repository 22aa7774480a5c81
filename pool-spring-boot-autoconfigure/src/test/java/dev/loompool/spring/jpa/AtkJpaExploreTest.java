package dev.loompool.spring.jpa;

import dev.loompool.jdbc.TestDatabase;
import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

class AtkJpaExploreTest {

    static void p(JpaRequests.Request r, String what) {
        System.out.println("ATK " + what + " -> " + r.bound() + " times=" + r.ds().getPinTimes());
    }

    @Test
    void explore() throws Exception {
        String schema = "atkjpa_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
            st.execute("CREATE FUNCTION " + schema + ".atkjpa_bump(x int) RETURNS int LANGUAGE sql VOLATILE AS 'select x + 1'");
            st.execute("CREATE FUNCTION " + schema + ".atkjpa_twice(x int) RETURNS int LANGUAGE sql IMMUTABLE AS 'select x * 2'");
        }
        try {
            JpaRequests.withApplication(TestDatabase.POSTGRES.url() + "&currentSchema=" + schema, 2, app -> {
                app.request(r -> {
                    EntityManager em = r.em();
                    Long id = r.tx().execute(s -> {
                        Doc d = new Doc("first", new byte[] {1, 2, 3});
                        em.persist(d);
                        return d.id;
                    });
                    p(r, "after tx persisting a SEQUENCE doc with a lob");
                    em.persist(new Doc("outside", null));
                    p(r, "persist outside tx (nextval?)");
                    em.clear();
                    Doc d = r.tx().execute(s -> em.find(Doc.class, id));
                    p(r, "find doc with lob in tx");
                    try {
                        System.out.println("ATK body " + d.body.length + " formula " + d.titleLength);
                    } catch (Exception e) {
                        System.out.println("ATK lob read failed " + e);
                    }
                    p(r, "after reading lob outside tx");
                    r.tx().executeWithoutResult(s -> em.find(Doc.class, id).title = "changed");
                    p(r, "after @Version update tx");
                    r.tx().executeWithoutResult(s -> {
                        for (int i = 0; i < 12; i++) {
                            em.persist(new Doc("b" + i, null));
                        }
                    });
                    p(r, "after batched sequence inserts");
                    em.clear();
                    long count = em.createQuery("select count(d) from Doc d", Long.class).getSingleResult();
                    var page = em.createQuery("select d from Doc d order by d.id", Doc.class).setFirstResult(2).setMaxResults(3).getResultList();
                    p(r, "after count + page outside tx " + count + " " + page.size());
                    var proj = em.createQuery("select new map(d.id as id, d.title as t) from Doc d", java.util.Map.class).getResultList();
                    p(r, "after projection " + proj.size());
                    Object v = em.createNativeQuery("select atkjpa_twice(3)").getSingleResult();
                    p(r, "after immutable function outside tx " + v);
                    r.tx().executeWithoutResult(s -> {
                        try (var stream = em.createQuery("select d from Doc d", Doc.class).getResultStream()) {
                            System.out.println("ATK streamed " + stream.count());
                        }
                    });
                    p(r, "after stream tx");
                    TransactionTemplate ro = new TransactionTemplate(r.tx().getTransactionManager());
                    ro.setReadOnly(true);
                    ro.executeWithoutResult(s -> em.createQuery("select d from Doc d", Doc.class).getResultList());
                    p(r, "after readOnly tx");
                    TransactionTemplate ser = new TransactionTemplate(r.tx().getTransactionManager());
                    ser.setIsolationLevel(TransactionDefinition.ISOLATION_SERIALIZABLE);
                    ser.executeWithoutResult(s -> em.createQuery("select d from Doc d", Doc.class).getResultList());
                    p(r, "after serializable tx");
                    System.out.println("ATK iso after " + em.createNativeQuery("select current_setting('transaction_isolation') || ' ' || current_setting('transaction_read_only')").getSingleResult());
                    p(r, "after iso probe");
                    try {
                        r.tx().executeWithoutResult(s -> {
                            em.persist(new Doc("doomed", null));
                            em.flush();
                            throw new IllegalStateException("boom");
                        });
                    } catch (IllegalStateException e) {
                        System.out.println("ATK rolled back " + e.getMessage());
                    }
                    p(r, "after exception tx");
                    Object f = em.createNativeQuery("select atkjpa_bump(3)").getSingleResult();
                    p(r, "after volatile function outside tx " + f);
                });
                System.out.println("ATK after request " + app.ds().getBoundHandles() + " times=" + app.ds().getPinTimes());
            });
        } finally {
            try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
                st.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }
}
