package dev.loompool.sample.demo;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * DEMO ONLY, off unless {@code sample.demo.leak-endpoint=true}: {@code POST /demo/forgotten-connection}
 * makes the bug loompool's reclaimer exists for. It opens a connection, starts a transaction, runs
 * a query and drops the handle without closing it, so the handle keeps its physical connection
 * (the open transaction pins it) until the garbage collector finds the handle and the pool takes
 * the connection back: a {@code dev.loompool.Reclaim} event (and a {@code Reset}, the rollback).
 * The sample's own code never does this; {@code sample-app/record-sample} and the Flight Recorder test
 * switch it on to show every event kind in one recording.
 */
@RestController
@ConditionalOnProperty(name = "sample.demo.leak-endpoint", havingValue = "true")
public class ForgottenConnectionDemo {

    private final DataSource dataSource;

    public ForgottenConnectionDemo(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @PostMapping("/demo/forgotten-connection")
    public Map<String, Object> forget() throws SQLException {
        return Map.of("accounts", countWithoutClosing(dataSource));
    }

    /** Deliberately no try-with-resources: the handle is unreachable once this returns. */
    @SuppressWarnings("resource")
    private static long countWithoutClosing(DataSource dataSource) throws SQLException {
        Connection c = dataSource.getConnection();
        c.setAutoCommit(false);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM sample_account");
        rs.next();
        return rs.getLong(1);
    }
}
