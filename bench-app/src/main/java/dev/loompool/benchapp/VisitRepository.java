package dev.loompool.benchapp;

import org.springframework.data.jpa.repository.JpaRepository;

public interface VisitRepository extends JpaRepository<Visit, Long> {

    long countByPetOwnerId(long ownerId);
}
