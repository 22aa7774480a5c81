package dev.loompool.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a pool that could not start with the key to change, or the database to check. */
class LoomPoolFailureAnalyzer extends AbstractFailureAnalyzer<LoomPoolStartupException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LoomPoolStartupException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }
}
