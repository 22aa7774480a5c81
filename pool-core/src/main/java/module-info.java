/**
 * loompool's core: the generic pool ({@code dev.loompool}) and the JDBC pool
 * ({@code dev.loompool.jdbc}). Their engines, {@code dev.loompool.engine} and
 * {@code dev.loompool.jdbc.internal.*} (its rooms), are exported nowhere (docs/ARCHITECTURE.md).
 */
module dev.loompool {
    requires transitive java.sql;
    requires org.slf4j;
    // CachedRowSet: the disconnected rows of an array's getResultSet() (LentArray)
    requires java.sql.rowset;
    // the pool's MXBean (LoomPoolMXBean), registered when registerMbeans is set
    requires java.management;
    // @Generated on the generated JDBC wrappers: source retention, needed at compile time only
    requires static java.compiler;
    // Flight Recorder's events (dev.loompool.ConnectionWait, Connect, Pin, ...), beside their emitters in
    // the engines' packages: a module that reads jdk.jfr may declare events in packages it exports to
    // nobody (FlightRecorderModuleTest). Every JDK 17+ has it.
    requires jdk.jfr;

    exports dev.loompool;
    exports dev.loompool.jdbc;
}
