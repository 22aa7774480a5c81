package dev.loompool.spring;

import dev.loompool.jdbc.BindObserver;
import dev.loompool.jdbc.LoomConnection;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Pins a handle that binds inside an active Spring-managed transaction until the transaction
 * completes, whichever transaction manager runs it; a suspended transaction keeps its own pin, so
 * REQUIRES_NEW gets a physical connection of its own.
 */
final class SpringTransactionPinning implements BindObserver {

    @Override
    public void bound(LoomConnection handle) {
        if (TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.isActualTransactionActive()) {
            handle.beginFrameworkTransaction();
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    handle.endFrameworkTransaction();
                }
            });
        }
    }
}
