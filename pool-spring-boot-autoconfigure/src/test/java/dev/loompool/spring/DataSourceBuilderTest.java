package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.jdbc.DataSourceBuilder;

/**
 * Boot's {@link DataSourceBuilder} on loompool: {@code create().type(...)} and
 * {@code derivedFrom(...)}, the way Flyway and Liquibase derive a data source of their own.
 */
class DataSourceBuilderTest {

    @Test
    void createWithTheLoomPoolTypeGivesAWorkingPool() throws Exception {
        String url = LoomPoolAutoConfigurationTest.h2();
        DataSource built = DataSourceBuilder.create().type(LoomPoolDataSource.class).url(url).username("sa")
                .password("s3cret").driverClassName("org.h2.Driver").build();
        try (LoomPoolDataSource ds = (LoomPoolDataSource) built; Connection c = ds.getConnection();
                ResultSet rs = c.createStatement().executeQuery("SELECT CURRENT_USER")) {
            assertThat(ds.getJdbcUrl()).isEqualTo(url);
            assertThat(ds.getDriverClassName()).isEqualTo("org.h2.Driver");
            rs.next();
            assertThat(rs.getString(1)).isEqualToIgnoringCase("sa");
        }
    }

    @Test
    void derivedFromALoomPoolConnectsWithTheSameUrlAndCredentials() throws Exception {
        String url = LoomPoolAutoConfigurationTest.h2();
        try (LoomPoolDataSource source = new LoomPoolDataSource()) {
            source.setJdbcUrl(url);
            source.setUsername("sa");
            source.setPassword("s3cret");
            try (Connection c = source.getConnection()) {
                c.createStatement().execute("CREATE TABLE t (id int)"); // the database now has sa/s3cret
            }
            DataSource derived = DataSourceBuilder.derivedFrom(source).build();
            assertThat(derived).isInstanceOf(LoomPoolDataSource.class).isNotSameAs(source);
            try (LoomPoolDataSource ds = (LoomPoolDataSource) derived; Connection c = ds.getConnection();
                    ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM t")) {
                assertThat(ds.getJdbcUrl()).isEqualTo(url);
                rs.next();
                assertThat(rs.getInt(1)).isZero();
            }
        }
    }

    @Test
    void derivedFromALoomPoolWithAnotherUserKeepsTheUrl() throws Exception {
        String url = LoomPoolAutoConfigurationTest.h2();
        try (LoomPoolDataSource source = new LoomPoolDataSource()) {
            source.setJdbcUrl(url);
            source.setUsername("sa");
            DataSource derived = DataSourceBuilder.derivedFrom(source).username("migrations").password("m1").build();
            try (LoomPoolDataSource ds = (LoomPoolDataSource) derived) {
                assertThat(ds.getJdbcUrl()).isEqualTo(url);
                assertThat(ds.getUsername()).isEqualTo("migrations");
            }
        }
    }
}
