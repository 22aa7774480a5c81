package dev.loompool.spring;

import dev.loompool.PoolStats;
import dev.loompool.jdbc.LoomPoolDataSource;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadata;

/** Boot's view of a loompool data source, behind the {@code jdbc.connections.*} meters. */
final class LoomPoolDataSourceMetadata implements DataSourcePoolMetadata {

    private final LoomPoolDataSource dataSource;

    LoomPoolDataSourceMetadata(LoomPoolDataSource dataSource) {
        this.dataSource = dataSource;
    }

    private PoolStats stats() {
        return dataSource.isRunning() ? dataSource.getPool().stats() : null;
    }

    @Override
    public Float getUsage() {
        PoolStats s = stats();
        return s == null ? null : (float) s.inUse() / s.maxSize();
    }

    @Override
    public Integer getActive() {
        PoolStats s = stats();
        return s == null ? null : s.inUse();
    }

    @Override
    public Integer getIdle() {
        PoolStats s = stats();
        return s == null ? null : s.idle();
    }

    @Override
    public Integer getMax() {
        return dataSource.getMaxSize();
    }

    @Override
    public Integer getMin() {
        return dataSource.getMinSize();
    }

    @Override
    public String getValidationQuery() {
        return null; // validation is Connection.isValid
    }

    @Override
    public Boolean getDefaultAutoCommit() {
        return dataSource.getAutoCommit() == null ? Boolean.TRUE : dataSource.getAutoCommit();
    }
}
