package dev.loompool.spring.slices;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application the slice tests of this package find, as a user's tests find theirs. */
@SpringBootApplication
public class SliceApplication {
}
