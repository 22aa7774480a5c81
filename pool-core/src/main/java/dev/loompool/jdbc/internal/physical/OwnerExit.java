package dev.loompool.jdbc.internal.physical;

/**
 * The housekeeper's note on a lent connection whose holder's last user was seen ended: in which
 * binding, which thread, when. Kept on the connection ({@link PhysicalConnection#ownerExit}), read
 * and written by the housekeeper only.
 */
public record OwnerExit(long binding, Thread owner, long seenAt) {
}
