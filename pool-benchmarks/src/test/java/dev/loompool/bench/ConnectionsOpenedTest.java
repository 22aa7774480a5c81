package dev.loompool.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.loompool.stub.StubDriver;
import java.sql.Connection;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Each pool's own count of the connections it opened, read through {@link PoolKind#connectionsOpened}. */
class ConnectionsOpenedTest {

    @ParameterizedTest
    @EnumSource(PoolKind.class)
    void countsTheOneConnectionAPoolOfOneOpensAndNoMoreOnReuse(PoolKind pool) throws Exception {
        String url = StubDriver.database("churn-" + pool).cheap(Duration.ZERO).url();
        DataSource ds = pool.open(new PoolKind.Settings(url, null, null, 0, 1, Duration.ofSeconds(10)));
        try {
            for (int i = 0; i < 3; i++) {
                try (Connection c = ds.getConnection()) {
                    c.isValid(1);
                }
            }
            assertEquals(1, PoolKind.connectionsOpened(ds));
        } finally {
            PoolKind.close(ds);
        }
        assertThrows(IllegalStateException.class, () -> PoolKind.connectionsOpened(ds), "closed: no longer counted");
    }
}
