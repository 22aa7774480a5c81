package dev.loompool.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The loompool sample. Until the JDBC layer and the starter land (issues 3 to 5) it demonstrates
 * the generic pool: {@link GenericPoolDemo} pools plain H2 connections by hand.
 */
@SpringBootApplication
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
