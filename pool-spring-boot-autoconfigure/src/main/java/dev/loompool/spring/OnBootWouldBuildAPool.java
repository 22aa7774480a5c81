package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.util.List;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches where Boot itself would build a pool, and the user's explicit choices let it be
 * loompool: {@link DataSourceAutoConfiguration} is not excluded (by {@code exclude} on
 * {@code @SpringBootApplication} or {@code @EnableAutoConfiguration}, or
 * {@code spring.autoconfigure.exclude}), and {@code spring.datasource.type} is unset or names
 * {@link LoomPoolDataSource}. Boot records exclusions while it selects the auto-configurations,
 * before any of their conditions run, so the report already holds them here.
 */
final class OnBootWouldBuildAPool extends SpringBootCondition {

    static final String TYPE = "spring.datasource.type";

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
        if (beanFactory != null) {
            List<String> excluded = ConditionEvaluationReport.get(beanFactory).getExclusions();
            if (excluded.contains(DataSourceAutoConfiguration.class.getName())) {
                return ConditionOutcome.noMatch("DataSourceAutoConfiguration is excluded: no auto-configured DataSource");
            }
        }
        String type = context.getEnvironment().getProperty(TYPE);
        if (type != null && !type.isBlank() && !LoomPoolDataSource.class.getName().equals(type.trim())) {
            return ConditionOutcome.noMatch(TYPE + " names " + type.trim() + ", not loompool");
        }
        return ConditionOutcome.match("Boot would build a pool, and it may be loompool");
    }
}
