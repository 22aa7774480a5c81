package dev.loompool.spring;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * An application that built its own data sources with Boot's {@code DataSourceBuilder} and no type
 * (Boot's documented setup for two data sources) got HikariCP, the first pool the builder knows; with
 * the starter instead of {@code spring-boot-starter-jdbc}, HikariCP is gone and the builder, which
 * never picks loompool on its own, fails with "No supported DataSource type found". The report says
 * what happened and the two ways out.
 */
class NoPoolTypeFailureAnalyzer implements FailureAnalyzer {

    static final String BOOTS_MESSAGE = "No supported DataSource type found";

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof IllegalStateException && BOOTS_MESSAGE.equals(t.getMessage())) {
                return new FailureAnalysis("A data source built with Spring Boot's DataSourceBuilder without a type"
                        + " found no pool it knows: HikariCP, the one it used to pick, is not on the class path (the"
                        + " loompool starter does not bring it), and DataSourceBuilder never picks loompool on its own.",
                        "Name the pool where the data source is built: DataSourceBuilder.create()"
                                + ".type(LoomPoolDataSource.class), or DataSourceProperties.initializeDataSourceBuilder()"
                                + ".type(LoomPoolDataSource.class), and write its settings under loompool's names"
                                + " (max-size, min-size, acquire-timeout: loompool's docs/spring-boot.md lists HikariCP's name for"
                                + " each), or keep HikariCP for it (add com.zaxxer:HikariCP).", t);
            }
        }
        return null;
    }
}
