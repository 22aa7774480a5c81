package dev.loompool.spring.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import java.util.ArrayList;
import java.util.List;

/** An owner and its lazily loaded pets, as in Spring PetClinic. */
@Entity
@Table(name = "owners")
class Owner {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    Long id;

    String name;

    @OneToMany(mappedBy = "owner")
    List<Pet> pets = new ArrayList<>();

    Owner() {
    }

    Owner(String name) {
        this.name = name;
    }
}
