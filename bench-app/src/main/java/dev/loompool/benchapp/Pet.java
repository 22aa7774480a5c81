package dev.loompool.benchapp;

import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OneToMany;
import jakarta.persistence.OrderBy;
import jakarta.persistence.Table;
import java.util.ArrayList;
import java.util.List;

/** A pet of an owner, with its visits (lazy, batch-fetched). */
@Entity
// Its foreign key indexed, as a real schema has it (PetClinic's does): the lazy loads look rows up by it.
@Table(indexes = @Index(columnList = "owner_id"))
public class Pet {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    private String name;

    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    private Owner owner;

    @OneToMany(mappedBy = "pet")
    @OrderBy("id")
    private List<Visit> visits = new ArrayList<>();

    public Long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public Owner getOwner() {
        return owner;
    }

    public List<Visit> getVisits() {
        return visits;
    }
}
