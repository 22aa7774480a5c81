package dev.loompool.benchapp;

import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import java.time.LocalDate;

/** A visit of a pet. IDENTITY ids: saving one runs its INSERT at once, to learn the id. */
@Entity
// Its foreign key indexed, as a real schema has it (PetClinic's does): the lazy loads look rows up by it.
@Table(indexes = @Index(columnList = "pet_id"))
public class Visit {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    private LocalDate date;

    private String description;

    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    private Pet pet;

    protected Visit() {
    }

    Visit(Pet pet, LocalDate date, String description) {
        this.pet = pet;
        this.date = date;
        this.description = description;
    }

    public Long getId() {
        return id;
    }

    public LocalDate getDate() {
        return date;
    }

    public String getDescription() {
        return description;
    }

    public Pet getPet() {
        return pet;
    }
}
