package dev.loompool.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Reports a pool that could not start with the key to change, or the database to check. First of
 * the analyzers: a refused value carries Boot's BindException as its cause, which Boot's own
 * bind report would otherwise describe without the allowed values or the way out.
 */
class LoomPoolFailureAnalyzer extends AbstractFailureAnalyzer<LoomPoolStartupException> implements Ordered {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LoomPoolStartupException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
