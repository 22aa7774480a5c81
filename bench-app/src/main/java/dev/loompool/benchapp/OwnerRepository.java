package dev.loompool.benchapp;

import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;

public interface OwnerRepository extends JpaRepository<Owner, Long> {

    /** A list page: owners by id range, no count query. */
    List<Owner> findByIdBetweenOrderById(long from, long to);
}
