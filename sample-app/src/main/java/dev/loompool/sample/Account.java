package dev.loompool.sample;

import java.math.BigDecimal;

/** An account of the sample bank. */
public record Account(long id, String owner, BigDecimal balance) {
}
