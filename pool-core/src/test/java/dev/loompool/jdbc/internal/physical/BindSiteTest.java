package dev.loompool.jdbc.internal.physical;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Where the application bound a connection, for leak warnings (DESIGN.md §4, "Coroutine end
 * (reclaim)"), as {@link BindSite} finds it: the first frame that is neither loompool's own main
 * code nor the JDK's, a driver's, Spring's or Hibernate's, as one line.
 */
class BindSiteTest {

    private static Throwable stack(StackTraceElement... frames) {
        Throwable t = new Throwable("bound here");
        t.setStackTrace(frames);
        return t;
    }

    private static StackTraceElement frame(String className, String method, String file, int line) {
        return new StackTraceElement(className, method, file, line);
    }

    @Test
    void theFirstFrameOutsideTheInfrastructureIsTheBindSite() {
        Throwable from = stack(
                frame("dev.loompool.jdbc.internal.handle.LogicalConnection", "bind", "LogicalConnection.java", 10),
                frame("dev.loompool.jdbc.LoomPoolDataSource", "getConnection", "LoomPoolDataSource.java", 20),
                frame("org.springframework.jdbc.core.JdbcTemplate", "execute", "JdbcTemplate.java", 30),
                frame("org.hibernate.internal.SessionImpl", "find", "SessionImpl.java", 40),
                frame("java.lang.Thread", "run", "Thread.java", 50),
                frame("com.example.Orders", "place", "Orders.java", 42),
                frame("com.example.Main", "main", "Main.java", 7));

        assertThat(BindSite.of(from)).isEqualTo("com.example.Orders.place(Orders.java:42)");
    }

    @Test
    void anApplicationBelowDevLoompoolIsNotInfrastructure() {
        Throwable from = stack(
                frame("dev.loompool.engine.DirectPool", "acquire", "DirectPool.java", 1),
                frame("dev.loompool.sample.OwnerRepository", "findAll", "OwnerRepository.java", 12));

        assertThat(BindSite.of(from)).isEqualTo("dev.loompool.sample.OwnerRepository.findAll(OwnerRepository.java:12)");
    }

    @Test
    void aFrameWithoutAFileOrALineSaysSo() {
        assertThat(BindSite.of(stack(frame("com.example.Generated", "call", null, -1))))
                .isEqualTo("com.example.Generated.call(?)");
        assertThat(BindSite.of(stack(frame("com.example.Native", "call", "Native.java", -2))))
                .isEqualTo("com.example.Native.call(Native.java)");
    }

    @Test
    void noStackOrOnlyInfrastructureGivesNoBindSite() {
        assertThat(BindSite.of(null)).isNull();
        assertThat(BindSite.of(stack(
                frame("org.postgresql.jdbc.PgConnection", "execute", "PgConnection.java", 1),
                frame("org.mariadb.jdbc.Connection", "execute", "Connection.java", 2),
                frame("com.mysql.cj.jdbc.ConnectionImpl", "execute", "ConnectionImpl.java", 3),
                frame("jdk.internal.reflect.DirectMethodHandleAccessor", "invoke", null, -1)))).isNull();
    }
}
