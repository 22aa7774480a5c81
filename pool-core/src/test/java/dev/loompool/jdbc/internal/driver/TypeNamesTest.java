package dev.loompool.jdbc.internal.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/**
 * How {@link TypeNames} treats a driver's cache of type names (issue 38, item 1), on a cache of
 * pgjdbc's shape and on one of another: put back as on a fresh connection, or not trusted, and the
 * connection closed instead ({@link SessionReset#forgetTypeNames} answers why).
 */
class TypeNamesTest {

    /** The public method pgjdbc's connection has: {@code BaseConnection.getTypeInfo()}. */
    public interface DriverConnection extends Connection {
        Object getTypeInfo();
    }

    /** pgjdbc's shape: maps, statements, the connection, a lock, a number. */
    static final class KnownShape {
        final Map<String, Integer> nameToOid = new HashMap<>(Map.of("int4", 23));
        final Map<Integer, String> oidToName = java.util.Collections.synchronizedMap(new HashMap<>(Map.of(23, "int4")));
        PreparedStatement lookup;
        Connection conn;
        final ReentrantLock lock = new ReentrantLock();
        int unknownLength;
    }

    /** A field the pool does not know: a reworked cache. */
    static final class OtherShape {
        final Map<String, Integer> nameToOid = new HashMap<>();
        final Object registry = new Object();
    }

    private static Connection driverConnection(Object cache) {
        return (Connection) Proxy.newProxyInstance(TypeNamesTest.class.getClassLoader(),
                new Class<?>[] {DriverConnection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getTypeInfo")) {
                        return cache;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void aCacheOfPgjdbcsShapeIsPutBackAsOnTheFirstConnection() throws Exception {
        TypeNames names = TypeNames.of(driverConnection(new KnownShape()));
        assertThat(names.driverKeepsNames()).isTrue();
        assertThat(names.restorable()).isTrue();
        KnownShape used = new KnownShape();
        used.nameToOid.put("v_t", 90001);
        used.nameToOid.put("int4", 777); // a name overwritten too
        used.oidToName.put(90001, "v_t");
        assertThat(names.restore(driverConnection(used))).isTrue();
        assertThat(used.nameToOid).containsExactly(Map.entry("int4", 23));
        assertThat(used.oidToName).containsExactly(Map.entry(23, "int4"));
    }

    @Test
    void aCacheOfAnotherShapeIsNotTrustedAndTheResetSaysWhy() throws Exception {
        TypeNames names = TypeNames.of(driverConnection(new OtherShape()));
        assertThat(names.driverKeepsNames()).isTrue();
        assertThat(names.restorable()).isFalse();
        assertThat(names.restore(driverConnection(new OtherShape()))).isFalse();
    }

    @Test
    void aDriverWithoutTypeInfoKeepsNothingTheResetKnowsOf() {
        Connection plain = (Connection) Proxy.newProxyInstance(TypeNamesTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> null);
        assertThat(TypeNames.of(plain).driverKeepsNames()).isFalse();
    }
}
