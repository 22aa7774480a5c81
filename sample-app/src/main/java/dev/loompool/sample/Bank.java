package dev.loompool.sample;

import java.math.BigDecimal;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Accounts and transfers. A transfer is one transaction: it keeps one physical connection throughout. */
@Service
public class Bank {

    private final JdbcClient db;

    public Bank(JdbcClient db) {
        this.db = db;
    }

    public List<Account> accounts() {
        return db.sql("SELECT id, owner, balance FROM sample_account ORDER BY id").query(Account.class).list();
    }

    public BigDecimal totalBalance() {
        return db.sql("SELECT COALESCE(SUM(balance), 0) FROM sample_account").query(BigDecimal.class).single();
    }

    /**
     * Moves {@code amount} from one account to another, or not at all. The rows are locked in id
     * order, so two opposite transfers cannot deadlock.
     */
    @Transactional
    public Transfer transfer(long from, long to, BigDecimal amount) {
        if (from == to || amount.signum() <= 0) {
            throw new IllegalArgumentException("a transfer needs two different accounts and a positive amount");
        }
        long first = Math.min(from, to);
        long second = Math.max(from, to);
        List<Account> locked = db.sql("SELECT id, owner, balance FROM sample_account WHERE id IN (?, ?) ORDER BY id FOR UPDATE")
                .params(first, second).query(Account.class).list();
        if (locked.size() != 2) {
            throw new IllegalArgumentException("no such account: " + (locked.isEmpty() ? from + ", " + to
                    : locked.get(0).id() == first ? second : first));
        }
        Account source = locked.get(0).id() == from ? locked.get(0) : locked.get(1);
        if (source.balance().compareTo(amount) < 0) {
            throw new InsufficientFundsException(from, source.balance(), amount);
        }
        db.sql("UPDATE sample_account SET balance = balance - ? WHERE id = ?").params(amount, from).update();
        db.sql("UPDATE sample_account SET balance = balance + ? WHERE id = ?").params(amount, to).update();
        db.sql("INSERT INTO sample_transfer (from_account, to_account, amount) VALUES (?, ?, ?)")
                .params(from, to, amount).update();
        return new Transfer(from, to, amount);
    }

    public record Transfer(long from, long to, BigDecimal amount) {
    }

    /** The source account cannot cover the amount. */
    public static class InsufficientFundsException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        InsufficientFundsException(long account, BigDecimal balance, BigDecimal amount) {
            super("account " + account + " has " + balance + ", not enough for " + amount);
        }
    }
}
