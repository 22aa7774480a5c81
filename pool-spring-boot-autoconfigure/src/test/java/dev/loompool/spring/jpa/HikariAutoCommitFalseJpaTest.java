package dev.loompool.spring.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.TestDatabase;
import dev.loompool.spring.LoomPoolAutoConfiguration;
import dev.loompool.spring.LoomPoolWiringAutoConfiguration;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.orm.jpa.EntityManagerFactoryUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The usual HikariCP + Hibernate tuning, {@code spring.datasource.hikari.auto-commit=false} (Boot then
 * tells Hibernate the pool disables autocommit, so Hibernate never calls setAutoCommit), kept as it
 * is with the starter swapped in: committed transactions are kept, rolled back ones are not, on a
 * real PostgreSQL, exactly as under HikariCP.
 */
class HikariAutoCommitFalseJpaTest {

    private List<String> run(boolean hikari) throws Exception {
        String schema = "hkjpa_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
            st.execute("CREATE FUNCTION " + schema + ".atkjpa_bump(x int) RETURNS int LANGUAGE sql VOLATILE AS 'select x + 1'");
            st.execute("CREATE FUNCTION " + schema + ".atkjpa_twice(x int) RETURNS int LANGUAGE sql IMMUTABLE AS 'select x * 2'");
        }
        List<String> seen = new ArrayList<>();
        try {
            ApplicationContextRunner runner = new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                            LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class,
                            HibernateJpaAutoConfiguration.class, TransactionAutoConfiguration.class))
                    .withUserConfiguration(JpaRequests.JpaApplication.class)
                    .withPropertyValues("spring.jpa.hibernate.ddl-auto=create",
                            "spring.datasource.url=" + TestDatabase.POSTGRES.url() + "&currentSchema=" + schema,
                            "spring.datasource.hikari.auto-commit=false", "spring.datasource.hikari.maximum-pool-size=2");
            if (hikari) {
                runner = runner.withPropertyValues("spring.datasource.type=" + HikariDataSource.class.getName());
            }
            runner.run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(DataSource.class))
                        .isInstanceOf(hikari ? HikariDataSource.class : LoomPoolDataSource.class);
                EntityManagerFactory emf = context.getBean(EntityManagerFactory.class);
                seen.add("provider_disables_autocommit "
                        + emf.getProperties().get("hibernate.connection.provider_disables_autocommit"));
                TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
                tx.executeWithoutResult(s -> em(emf).persist(new Doc("kept", null)));
                tx.executeWithoutResult(s -> {
                    em(emf).persist(new Doc("rolled back", null));
                    em(emf).flush();
                    s.setRollbackOnly();
                });
                try {
                    tx.executeWithoutResult(s -> {
                        em(emf).persist(new Doc("failed", null));
                        em(emf).flush();
                        throw new IllegalStateException("boom");
                    });
                } catch (IllegalStateException expected) {
                    seen.add("failed transaction thrown");
                }
                tx.executeWithoutResult(s -> seen.add("in a later transaction: "
                        + em(emf).createQuery("select d.title from Doc d order by d.title", String.class).getResultList()));
            });
            try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement();
                    ResultSet rs = st.executeQuery("SELECT string_agg(title, ',' ORDER BY title) FROM " + schema + ".docs")) {
                rs.next();
                seen.add("committed: " + rs.getString(1));
            }
        } finally {
            try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
                st.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
        return seen;
    }

    private static EntityManager em(EntityManagerFactory emf) {
        return EntityManagerFactoryUtils.getTransactionalEntityManager(emf);
    }

    @Test
    void committedTransactionsAreKeptAndRolledBackOnesAreNotAsUnderHikari() throws Exception {
        List<String> underHikari = run(true);
        assertThat(underHikari).containsExactly("provider_disables_autocommit true", "failed transaction thrown",
                "in a later transaction: [kept]", "committed: kept");
        assertThat(run(false)).isEqualTo(underHikari);
    }
}
