package dev.loompool.stub;

import java.sql.ResultSet;

/** What pools and the pool's tests ask of a database's metadata. */
final class StubMetaData extends NoOpDatabaseMetaData {

    private final StubConnection connection;

    StubMetaData(StubConnection connection) {
        this.connection = connection;
    }

    @Override
    public String getDatabaseProductName() {
        return "Stub";
    }

    @Override
    public int getJDBCMajorVersion() {
        return 4;
    }

    @Override
    public int getJDBCMinorVersion() {
        return 3;
    }

    @Override
    public ResultSet getTables(String catalog, String schemaPattern, String tableNamePattern, String[] types) {
        return connection.metaDataRows();
    }
}
