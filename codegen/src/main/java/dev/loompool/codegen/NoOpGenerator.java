package dev.loompool.codegen;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Blob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * Writes do-nothing implementations of the JDBC interfaces the stub driver (pool-stub-driver, used by
 * the tests and the benchmarks) builds on: every method returns null, zero or false, so that the
 * stub spells out only the behaviour a pool depends on, and a benchmark measures the pool, not the
 * driver. {@link JdbcMethods} writes the source; pool-stub-driver/pom.xml compiles {@code codegen/}
 * and runs {@code NoOpGenerator OUTPUT_DIR}.
 */
public final class NoOpGenerator {

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0], "dev", "loompool", "stub");
        Files.createDirectories(dir);
        for (Class<?> iface : new Class<?>[] {Connection.class, PreparedStatement.class, ResultSet.class,
                DatabaseMetaData.class, Blob.class}) {
            String name = "NoOp" + iface.getSimpleName();
            JdbcMethods out = new JdbcMethods("dev.loompool.stub", name,
                    "abstract class " + name + " implements " + iface.getName(), "NoOpGenerator");
            for (Method m : JdbcMethods.of(iface)) {
                Class<?> r = m.getReturnType();
                out.method(m, r == void.class ? ""
                        : "return " + (r == boolean.class ? "false" : r.isPrimitive() ? "0" : "null") + ";");
            }
            out.write(dir);
        }
    }
}
