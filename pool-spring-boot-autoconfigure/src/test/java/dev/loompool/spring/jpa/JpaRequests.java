package dev.loompool.spring.jpa;

import dev.loompool.jdbc.HandleInfo;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.spring.LoomPoolAutoConfiguration;
import dev.loompool.spring.LoomPoolWiringAutoConfiguration;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs a JPA application on a loompool data source and open-in-view requests in it: each request
 * binds one entity manager for its whole life, as OpenEntityManagerInViewInterceptor does.
 */
final class JpaRequests {

    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage
    static class JpaApplication {
    }

    /** What a request body gets: the pool, the request's entity manager, transactions. */
    record Request(LoomPoolDataSource ds, EntityManagerFactory emf, EntityManager em, TransactionTemplate tx) {
        /** The handles holding a physical connection now, with their pins. */
        List<HandleInfo> bound() {
            return ds.getBoundHandles();
        }
    }

    interface Body {
        void run(Request r) throws Exception;
    }

    /** The application, started with a pool of at most maxSize connections, given to app. */
    static void withApplication(String url, int maxSize, Consumer<App> app, String... properties) {
        LoomPoolDataSource[] pool = new LoomPoolDataSource[1];
        withApplication(() -> {
            LoomPoolDataSource ds = new LoomPoolDataSource();
            ds.setJdbcUrl(url);
            ds.setMinSize(0);
            ds.setMaxSize(maxSize);
            ds.setAcquireTimeout(java.time.Duration.ofSeconds(5)); // a request that cannot borrow fails the test, not hangs
            pool[0] = ds;
            return ds;
        }, context -> app.accept(new App(pool[0], context.getBean(EntityManagerFactory.class),
                new TransactionTemplate(context.getBean(PlatformTransactionManager.class)))), properties);
    }

    /** The application on any data source (HikariCP, for comparison); {@link App#ds()} is then null. */
    static void withApplication(java.util.function.Supplier<DataSource> dataSource,
            Consumer<org.springframework.context.ApplicationContext> app, String... properties) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                        LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class,
                        HibernateJpaAutoConfiguration.class, TransactionAutoConfiguration.class))
                .withUserConfiguration(JpaApplication.class)
                .withBean("dataSource", DataSource.class, dataSource)
                .withPropertyValues("spring.jpa.hibernate.ddl-auto=create")
                .withPropertyValues(properties)
                .run(context -> {
                    if (context.getStartupFailure() != null) {
                        throw new AssertionError(context.getStartupFailure());
                    }
                    app.accept(context);
                });
    }

    record App(LoomPoolDataSource ds, EntityManagerFactory emf, TransactionTemplate tx) {
        /** One open-in-view request on the calling thread. */
        void request(Body body) {
            EntityManager em = emf.createEntityManager();
            TransactionSynchronizationManager.bindResource(emf, new EntityManagerHolder(em));
            try {
                body.run(new Request(ds, emf, em, tx));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                TransactionSynchronizationManager.unbindResource(emf);
                em.close();
            }
        }
    }

    private JpaRequests() {
    }
}
