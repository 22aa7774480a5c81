package dev.loompool.benchapp;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The application P10 runs under HTTP load: a small clinic (owners, their pets, the pets' visits)
 * on JPA, written as such applications usually are, open-in-view and all. loompool serves it by
 * default (the starter); {@code --spring.datasource.type=com.zaxxer.hikari.HikariDataSource} makes
 * the starter back off and Boot build HikariCP instead, from the same jar.
 */
@SpringBootApplication
public class BenchApp {

    public static void main(String[] args) {
        SpringApplication.run(BenchApp.class, args);
    }
}
