package dev.loompool;

/**
 * A consistent snapshot of a pool's counts. {@code total == idle + inUse <= maxSize} always holds;
 * resources being created, checked or destroyed count as in use.
 *
 * @param total resources that exist or are being created
 * @param idle resources waiting in the pool
 * @param inUse resources lent out, or in a callback (factory, checks, destructor)
 * @param pending threads waiting for a resource
 * @param minSize the size the pool keeps itself at
 * @param maxSize the size the pool never exceeds
 */
public record PoolStats(int total, int idle, int inUse, int pending, int minSize, int maxSize) {

    /** The counts as {@code total=…, idle=…, inUse=…, pending=…, maxSize=…}, for messages. */
    @Override
    public String toString() {
        return "total=" + total + ", idle=" + idle + ", inUse=" + inUse + ", pending=" + pending
                + ", minSize=" + minSize + ", maxSize=" + maxSize;
    }
}
