package dev.loompool.sample;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class BankController {

    private final Bank bank;
    private final SlowReport slowReport;

    public BankController(Bank bank, SlowReport slowReport) {
        this.bank = bank;
        this.slowReport = slowReport;
    }

    /** {@code GET /accounts}: every account. */
    @GetMapping("/accounts")
    public List<Account> accounts() {
        return bank.accounts();
    }

    /** {@code GET /accounts/total}: the sum of the balances, which transfers never change. */
    @GetMapping("/accounts/total")
    public Map<String, BigDecimal> total() {
        return Map.of("total", bank.totalBalance());
    }

    public record TransferRequest(long from, long to, BigDecimal amount) {
    }

    /** {@code POST /transfers}: one transaction, pinned to one physical connection. */
    @PostMapping("/transfers")
    public Bank.Transfer transfer(@RequestBody TransferRequest request) {
        return bank.transfer(request.from(), request.to(), request.amount());
    }

    /** {@code GET /accounts/{id}/report?delayMs=}: query, slow call, query; no connection held during the call. */
    @GetMapping("/accounts/{id}/report")
    public SlowReport.Report report(@PathVariable long id, @RequestParam(required = false) Long delayMs)
            throws SQLException, InterruptedException {
        return slowReport.report(id, delayMs == null ? null : Duration.ofMillis(delayMs));
    }

    @ExceptionHandler({IllegalArgumentException.class, Bank.InsufficientFundsException.class})
    public ResponseEntity<Map<String, String>> refused(RuntimeException e) {
        return ResponseEntity.status(HttpStatus.UNPROCESSABLE_CONTENT).body(Map.of("error", e.getMessage()));
    }
}
