package dev.loompool.sample;

import dev.loompool.CircuitBreakerStrategy;
import dev.loompool.Lease;
import dev.loompool.Pool;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/** Runs a burst of concurrent inserts through a generic {@link Pool} of H2 connections. */
@Component
class GenericPoolDemo implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(GenericPoolDemo.class);

    private final String url;
    private final int tasks;
    private volatile long rows = -1;

    GenericPoolDemo(@Value("${sample.jdbc-url:jdbc:h2:mem:sample;DB_CLOSE_DELAY=-1}") String url,
            @Value("${sample.tasks:200}") int tasks) {
        this.url = url;
        this.tasks = tasks;
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        try (Pool<Connection> pool = Pool.builder(() -> DriverManager.getConnection(url, "sa", ""))
                .destructor(Connection::close)
                .beforeAcquire(c -> !c.isClosed())
                .beforeRelease(Connection::getAutoCommit) // a connection left in a transaction is dropped
                .healthcheck(c -> c.isValid(1))
                .healthcheckInterval(Duration.ofSeconds(30))
                .minSize(2).maxSize(4)
                .acquireTimeout(Duration.ofSeconds(5))
                .circuitBreakerStrategy(CircuitBreakerStrategy.consecutiveFailures(5, Duration.ofSeconds(5)))
                .name("sample")
                .build()) {
            try (Lease<Connection> lease = pool.acquire(); Statement st = lease.resource().createStatement()) {
                st.execute("CREATE TABLE IF NOT EXISTS visit (id IDENTITY PRIMARY KEY, worker INT NOT NULL)");
            }
            ExecutorService workers = Executors.newFixedThreadPool(16);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < tasks; i++) {
                    int worker = i;
                    done.add(workers.submit(() -> insert(pool, worker)));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                workers.shutdown();
            }
            rows = count(pool);
            log.info("{} tasks on 16 threads shared {} connections: {} rows inserted; pool {}",
                    tasks, pool.stats().total(), rows, pool.stats());
        }
    }

    private static Void insert(Pool<Connection> pool, int worker) throws InterruptedException, SQLException {
        try (Lease<Connection> lease = pool.acquire(); Statement st = lease.resource().createStatement()) {
            st.executeUpdate("INSERT INTO visit (worker) VALUES (" + worker + ")");
        }
        return null;
    }

    private static long count(Pool<Connection> pool) throws InterruptedException, SQLException {
        try (Lease<Connection> lease = pool.acquire();
                Statement st = lease.resource().createStatement();
                ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM visit")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Rows in the table after the run, or -1 before it. */
    long rows() {
        return rows;
    }
}
