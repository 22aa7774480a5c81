package dev.loompool.jdbc;

/**
 * A user name and password for {@code Driver.connect}. Supplied afresh for every new physical
 * connection, so that rotated credentials take effect without a restart.
 *
 * @param username may be null when the URL or properties carry it
 * @param password may be null; never printed
 */
public record Credentials(String username, String password) {

    @Override
    public String toString() {
        // The secret itself is never formatted: only whether there is one.
        return String.format("Credentials[username=%s, password=%s]", username, password == null ? "none" : "****");
    }
}
