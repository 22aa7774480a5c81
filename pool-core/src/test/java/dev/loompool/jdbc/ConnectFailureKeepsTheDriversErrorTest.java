package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.OnEveryDriver.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Errors, "connect failed": on each driver a wrong password, an unknown database or a refused port
 * gives the driver's SQLException (its SQLState, vendor code and exception class, what translators
 * read) with the pool's name attached, without hanging and never showing the password.
 */
class ConnectFailureKeepsTheDriversErrorTest extends OnRealDatabases {

    private static final String SECRET = "wt38y-Secret-Pw-7731";

    private static SQLException connectFailure(DataSource ds) {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("SELECT 1");
            return null;
        } catch (SQLException e) {
            return e;
        }
    }

    enum Failure { WRONG_PASSWORD, UNKNOWN_DATABASE, REFUSED_PORT }

    private static String withPassword(String url) {
        return url + (url.contains("?") ? "&" : "?") + "password=" + SECRET;
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void connectFailuresKeepWhatTranslatorsReadAndNeverShowThePassword(Db db) throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        for (Failure f : Failure.values()) {
            String base = url(db);
            String url = switch (f) {
                case WRONG_PASSWORD -> withPassword(base);
                case UNKNOWN_DATABASE -> base.replace("/test", "/wt38y_no_such_db");
                case REFUSED_PORT -> base.replaceFirst(":(5432|3306)/", ":" + closedPort + "/");
            };
            if (f == Failure.WRONG_PASSWORD && db != Db.POSTGRES) {
                // root on the local MariaDB may take any password over the socket: skip if the plain driver connects
                try (Connection probe = DriverManager.getConnection(url)) {
                    continue;
                } catch (SQLException expected) {
                    // goes on
                }
            }
            SQLException plain = connectFailure(new PlainDataSource(url));
            if (plain == null) {
                continue; // the server lets it in (trust authentication): nothing to compare
            }
            LoomPoolDataSource ds = loom(db, 1);
            ds.setJdbcUrl(url);
            ds.setPoolName("wt38y-" + db + "-" + f);
            ds.setAcquireTimeout(Duration.ofSeconds(5));
            SQLException pooled = assertTimeoutPreemptively(NO_HANG, () -> connectFailure(ds));
            String what = db + " " + f + ": plain " + plain + " / pooled " + pooled;
            assertThat((Throwable) pooled).as(what).isNotNull();
            assertThat(pooled.getSQLState()).as(what).isEqualTo(plain.getSQLState());
            assertThat(pooled.getErrorCode()).as(what).isEqualTo(plain.getErrorCode());
            for (Class<?> k : List.of(java.sql.SQLNonTransientConnectionException.class, java.sql.SQLTransientConnectionException.class,
                    java.sql.SQLInvalidAuthorizationSpecException.class, java.sql.SQLRecoverableException.class,
                    java.sql.SQLNonTransientException.class, java.sql.SQLTransientException.class,
                    java.sql.SQLSyntaxErrorException.class)) {
                assertThat(k.isInstance(pooled)).as(what + " is " + k.getSimpleName()).isEqualTo(k.isInstance(plain));
            }
            assertThat(pooled.getMessage()).as(what).contains("wt38y-" + db + "-" + f);
            for (Throwable t = pooled; t != null; t = t.getCause()) {
                assertThat(String.valueOf(t.getMessage())).as(what).doesNotContain(SECRET);
                assertThat(String.valueOf(t)).doesNotContain(SECRET);
            }
            ds.close();
        }
    }
}
