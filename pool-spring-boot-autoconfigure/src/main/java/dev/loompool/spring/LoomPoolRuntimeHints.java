package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * What loompool looks up by name at run time, declared for a native image: the fields behind its
 * VarHandles, the drivers' own methods it reads the transaction state and resets sessions with
 * (looked up by name, so that the core depends on no driver), the driver classes a
 * {@code driver-class-name} may name, the bean properties {@code loompool.*} and
 * {@code spring.datasource.hikari.*} bind onto and the endpoint reads, and the configuration
 * metadata the keys are checked against.
 */
final class LoomPoolRuntimeHints implements RuntimeHintsRegistrar {

    /** Classes of the core with a VarHandle on a field of their own. */
    static final String[] VAR_HANDLE_HOLDERS = {"dev.loompool.SystemClock", "dev.loompool.engine.PooledLease", "dev.loompool.jdbc.internal.handle.HandleLife",
        "dev.loompool.jdbc.internal.handle.HandleWatch", "dev.loompool.jdbc.internal.handle.LogicalConnection",
        "dev.loompool.jdbc.internal.physical.PhysicalConnection"};

    /** Driver types whose public methods the core finds by name (WireState, SessionReset). */
    static final String[] DRIVER_TYPES = {
        "org.postgresql.core.BaseConnection", "org.postgresql.PGConnection", "org.postgresql.jdbc.PgConnection",
        "org.mariadb.jdbc.Connection", "org.mariadb.jdbc.client.Context",
        "com.mysql.cj.jdbc.JdbcConnection", "com.mysql.cj.jdbc.ConnectionImpl", "com.mysql.cj.Session",
        "com.mysql.cj.protocol.ServerSession"};

    /**
     * Driver types whose own fields the core reads and restores: pgjdbc's cache of type names, put
     * back as on a fresh connection after a session that changed the search path (TypeNames).
     */
    static final String[] DRIVER_FIELD_HOLDERS = {"org.postgresql.jdbc.TypeInfoCache"};

    /** Drivers a driver-class-name may name, made by their public constructor. */
    static final String[] DRIVERS = {"org.postgresql.Driver", "org.mariadb.jdbc.Driver", "com.mysql.cj.jdbc.Driver",
        "org.h2.Driver", "org.hsqldb.jdbc.JDBCDriver"};

    /**
     * The JDK's row set classes behind {@code RowSetProvider.newFactory()}, which finds them by name:
     * an array's {@code getResultSet()} is a disconnected {@code CachedRowSet} (LentArray).
     */
    static final String[] ROW_SET_TYPES = {"com.sun.rowset.RowSetFactoryImpl", "com.sun.rowset.CachedRowSetImpl",
        "com.sun.rowset.providers.RIOptimisticProvider"};

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        for (String type : VAR_HANDLE_HOLDERS) {
            hints.reflection().registerType(TypeReference.of(type), MemberCategory.ACCESS_DECLARED_FIELDS);
        }
        for (String type : DRIVER_TYPES) {
            hints.reflection().registerType(TypeReference.of(type), MemberCategory.INVOKE_PUBLIC_METHODS);
        }
        for (String type : DRIVER_FIELD_HOLDERS) {
            hints.reflection().registerType(TypeReference.of(type), MemberCategory.ACCESS_DECLARED_FIELDS);
        }
        for (String type : DRIVERS) {
            hints.reflection().registerType(TypeReference.of(type), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
        }
        for (String type : ROW_SET_TYPES) {
            hints.reflection().registerType(TypeReference.of(type), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
        }
        hints.resources().registerResourceBundle("com.sun.rowset.RowSetResourceBundle");
        BindableRuntimeHintsRegistrar.forTypes(LoomPoolDataSource.class).registerHints(hints, classLoader);
        // The endpoint reads every setting through its getter (EndpointSettings), found by introspection.
        hints.reflection().registerType(LoomPoolDataSource.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        hints.reflection().registerType(LoomPoolDataSource.class.getSuperclass(), MemberCategory.INVOKE_PUBLIC_METHODS);
        // Bound as an instance, but its constructor would make Boot's registrar take it for a value object.
        hints.reflection().registerType(PoolKeys.CircuitBreakerKeys.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        hints.reflection().registerType(HikariSettings.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        // UnknownKeys reads the valid loompool.* keys from the configuration metadata on the class path.
        hints.resources().registerPattern("META-INF/spring-configuration-metadata.json")
                .registerPattern("META-INF/additional-spring-configuration-metadata.json");
    }
}
