package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.*;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

class ZzScratchLazyTest {
    static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    static int backends(String app) throws SQLException {
        try (Connection c = DriverManager.getConnection(URL); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + app + "'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void lazyFetchContextCloseClosesThePool() throws Exception {
        for (String fetch : new String[] {"eager", "lazy"}) {
            String app = "zz-lazy-" + UUID.randomUUID().toString().substring(0, 8);
            LoomPoolDataSource[] pool = new LoomPoolDataSource[1];
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    DataSourceAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + URL, "loompool.min-size=3",
                    "spring.datasource.connection-fetch=" + fetch,
                    "loompool.data-source-properties.ApplicationName=" + app)
                .run(ctx -> {
                    DataSource bean = ctx.getBean(DataSource.class);
                    pool[0] = DataSourceUnwrapper.unwrap(bean, LoomPoolDataSource.class);
                    System.out.println("PROBE " + fetch + ": bean type=" + bean.getClass().getSimpleName()
                        + " backends while running=" + backends(app));
                });
            Thread.sleep(500);
            System.out.println("PROBE " + fetch + ": after context close: pool.isClosed()=" + pool[0].isClosed()
                + " isRunning()=" + pool[0].isRunning() + " backends still open=" + backends(app));
        }
    }
}
