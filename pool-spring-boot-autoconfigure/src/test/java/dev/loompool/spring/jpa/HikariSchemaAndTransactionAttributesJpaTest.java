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
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.orm.jpa.EntityManagerFactoryUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A HikariCP + Hibernate application whose schema comes from {@code spring.datasource.hikari.schema}
 * (not the URL), with HikariCP's autocommit tuning, on one connection: a read-only transaction and
 * a serializable one (Spring sets both on the connection and puts them back) must leave the next
 * transaction writing, at the configured isolation, in the configured schema.
 */
class HikariSchemaAndTransactionAttributesJpaTest {

    private static final String SCHEMA = "wt40a_jpa";

    private List<String> run(boolean hikari) throws Exception {
        try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            st.execute("CREATE SCHEMA " + SCHEMA);
            st.execute("CREATE TABLE " + SCHEMA + ".wt40a_w (id int)");
        }
        List<String> seen = new ArrayList<>();
        try {
            ApplicationContextRunner runner = new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                            LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class,
                            HibernateJpaAutoConfiguration.class, TransactionAutoConfiguration.class))
                    .withUserConfiguration(JpaRequests.JpaApplication.class)
                    .withPropertyValues("spring.jpa.hibernate.ddl-auto=none",
                            "spring.datasource.url=" + TestDatabase.POSTGRES.url(),
                            "spring.datasource.hikari.schema=" + SCHEMA, "spring.datasource.hikari.auto-commit=false",
                            "spring.datasource.hikari.transaction-isolation=TRANSACTION_REPEATABLE_READ",
                            "spring.datasource.hikari.maximum-pool-size=1");
            if (hikari) {
                runner = runner.withPropertyValues("spring.datasource.type=" + HikariDataSource.class.getName());
            }
            runner.run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(DataSource.class))
                        .isInstanceOf(hikari ? HikariDataSource.class : LoomPoolDataSource.class);
                EntityManagerFactory emf = context.getBean(EntityManagerFactory.class);
                PlatformTransactionManager tm = context.getBean(PlatformTransactionManager.class);
                TransactionTemplate tx = new TransactionTemplate(tm);
                TransactionTemplate readOnly = new TransactionTemplate(tm);
                readOnly.setReadOnly(true);
                TransactionTemplate serializable = new TransactionTemplate(tm);
                serializable.setIsolationLevel(TransactionDefinition.ISOLATION_SERIALIZABLE);
                readOnly.executeWithoutResult(s -> seen.add("read-only " + session(emf)));
                serializable.executeWithoutResult(s -> seen.add("serializable " + session(emf)));
                tx.executeWithoutResult(s -> seen.add("next " + session(emf)));
                try {
                    tx.executeWithoutResult(s -> em(emf).createNativeQuery("INSERT INTO wt40a_w VALUES (1)").executeUpdate());
                } catch (RuntimeException e) {
                    seen.add("write failed");
                }
            });
            try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement();
                    ResultSet rs = st.executeQuery("SELECT count(*) FROM " + SCHEMA + ".wt40a_w")) {
                rs.next();
                seen.add("committed in " + SCHEMA + ": " + rs.getInt(1));
            }
        } finally {
            try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            }
        }
        return seen;
    }

    private static String session(EntityManagerFactory emf) {
        return em(emf).createNativeQuery("SELECT current_schema() || ' ' || current_setting('transaction_isolation')"
                + " || ' ' || current_setting('transaction_read_only')").getSingleResult().toString();
    }

    private static EntityManager em(EntityManagerFactory emf) {
        return EntityManagerFactoryUtils.getTransactionalEntityManager(emf);
    }

    @Test
    void readOnlyAndSerializableTransactionsLeaveTheNextOneAsConfigured() throws Exception {
        // HikariCP 7.1 sets the schema with autocommit off, then rolls its own setup back: the search path is
        // lost, every borrower is in public and the write fails. loompool keeps the configured schema.
        assertThat(run(true)).as("HikariCP").containsExactly("read-only public repeatable read on",
                "serializable public serializable off", "next public repeatable read off", "write failed",
                "committed in wt40a_jpa: 0");
        assertThat(run(false)).as("loompool").containsExactly("read-only wt40a_jpa repeatable read on",
                "serializable wt40a_jpa serializable off", "next wt40a_jpa repeatable read off",
                "committed in wt40a_jpa: 1");
    }
}
