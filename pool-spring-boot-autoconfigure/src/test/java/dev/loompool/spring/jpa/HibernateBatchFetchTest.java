package dev.loompool.spring.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.PoolListener;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.TestDatabase;
import dev.loompool.spring.LoomPoolAutoConfiguration;
import dev.loompool.spring.LoomPoolWiringAutoConfiguration;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.hibernate.resource.jdbc.spi.StatementInspector;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A real JPA application on PostgreSQL: Hibernate's batch fetch of lazy collections binds an
 * array ({@code … where owner_id = any (?)}, from {@code default_batch_fetch_size}). Handing out
 * that array once made loompool close the connection when the handle closed, so Spring PetClinic
 * opened a new server session for every owner page. In steady traffic, read-only transactions and
 * open-in-view style sessions alike, the pool must open no connection at all.
 */
class HibernateBatchFetchTest {

    /** The SQL Hibernate sent, to prove the batch fetch really bound an array. */
    static final Queue<String> SQL = new ConcurrentLinkedQueue<>();

    public static final class Recorder implements StatementInspector {
        @Override
        public String inspect(String sql) {
            SQL.add(sql);
            return sql;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage
    static class JpaApplication {
    }

    @Test
    void steadyJpaTrafficWithBatchFetchedCollectionsOpensNoServerSession() throws Exception {
        String schema = "jpa_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        }
        AtomicLong opened = new AtomicLong();
        try {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                            LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class,
                            HibernateJpaAutoConfiguration.class, TransactionAutoConfiguration.class))
                    .withUserConfiguration(JpaApplication.class)
                    .withBean("dataSource", DataSource.class, () -> {
                        LoomPoolDataSource ds = new LoomPoolDataSource();
                        ds.setJdbcUrl(TestDatabase.POSTGRES.url() + "&currentSchema=" + schema);
                        ds.setMinSize(0);
                        ds.setMaxSize(3);
                        ds.addPoolListener(new PoolListener() {
                            @Override
                            public void onCreated(long createNanos) {
                                opened.incrementAndGet();
                            }
                        });
                        return ds;
                    })
                    .withPropertyValues("spring.jpa.hibernate.ddl-auto=create",
                            "spring.jpa.properties.hibernate.default_batch_fetch_size=16",
                            "spring.jpa.properties.hibernate.session_factory.statement_inspector="
                                    + Recorder.class.getName())
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        EntityManagerFactory emf = context.getBean(EntityManagerFactory.class);
                        TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
                        tx.executeWithoutResult(s -> {
                            EntityManager em = emf.createEntityManager();
                            em.joinTransaction();
                            for (int i = 0; i < 30; i++) {
                                Owner o = new Owner("owner " + i);
                                em.persist(o);
                                for (int j = 0; j < 3; j++) {
                                    em.persist(new Pet("pet " + i + "." + j, o));
                                }
                            }
                            em.flush();
                            em.close();
                        });
                        TransactionTemplate readOnly = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
                        readOnly.setReadOnly(true);
                        for (int i = 0; i < 20; i++) { // warm-up: the pool grows to what the traffic needs
                            request(emf, readOnly, i);
                        }
                        long before = opened.get();
                        SQL.clear();
                        int requests = 300;
                        for (int i = 0; i < requests; i++) {
                            request(emf, readOnly, i);
                        }
                        assertThat(SQL).as("Hibernate batch-fetched the pets with an array parameter")
                                .anyMatch(sql -> sql.contains("any (?)") || sql.contains("any(?)"));
                        assertThat(opened.get() - before)
                                .as("connections opened during %d steady requests", requests).isZero();
                    });
        } finally {
            try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
                st.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    /**
     * One page of owners with their pets: in a read-only transaction (even requests), or in an
     * entity manager held across the request without a transaction, as open-in-view does (odd).
     */
    private static void request(EntityManagerFactory emf, TransactionTemplate readOnly, int i) {
        if (i % 2 == 0) {
            readOnly.executeWithoutResult(s -> {
                EntityManager em = emf.createEntityManager();
                em.joinTransaction();
                try {
                    page(em, i);
                } finally {
                    em.close();
                }
            });
        } else {
            EntityManager em = emf.createEntityManager();
            try {
                page(em, i);
            } finally {
                em.close();
            }
        }
    }

    private static void page(EntityManager em, int i) {
        List<Owner> owners = em.createQuery("select o from Owner o order by o.id", Owner.class)
                .setFirstResult(i % 3 * 10).setMaxResults(10).getResultList();
        int pets = 0;
        for (Owner o : owners) {
            pets += o.pets.size(); // lazy: batch-fetched, 16 owners' pets per statement
        }
        assertThat(pets).isEqualTo(30);
    }
}
