package dev.loompool.sample;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

@SpringBootTest(properties = {"sample.tasks=50", "sample.jdbc-url=jdbc:h2:mem:sampletest;DB_CLOSE_DELAY=-1"})
class SampleApplicationTest {

    @Autowired
    GenericPoolDemo demo;

    @Test
    void everyTaskInsertsThroughTheSharedPool() {
        assertThat(demo.rows()).isEqualTo(50);
    }
}
