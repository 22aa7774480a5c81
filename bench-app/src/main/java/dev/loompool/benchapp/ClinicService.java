package dev.loompool.benchapp;

import java.time.LocalDate;
import java.util.List;
import java.util.NoSuchElementException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Reads in read-only transactions, the write in a read-write one. With open-in-view the reads
 * leave the collections lazy, as applications written for it do: the controller walks them while
 * it renders, each batch a statement outside any transaction. Without it they load them here.
 */
@Service
public class ClinicService {

    static final int PAGE = 20;

    private final OwnerRepository owners;
    private final PetRepository pets;
    private final VisitRepository visits;
    private final boolean openInView;

    ClinicService(OwnerRepository owners, PetRepository pets, VisitRepository visits,
            @Value("${spring.jpa.open-in-view:true}") boolean openInView) {
        this.owners = owners;
        this.pets = pets;
        this.visits = visits;
        this.openInView = openInView;
    }

    @Transactional(readOnly = true)
    public List<Owner> page(int page) {
        long first = (long) page * PAGE + 1;
        List<Owner> list = owners.findByIdBetweenOrderById(first, first + PAGE - 1);
        if (!openInView) {
            list.forEach(ClinicService::load);
        }
        return list;
    }

    @Transactional(readOnly = true)
    public Owner owner(long id) {
        Owner owner = owners.findById(id).orElseThrow(() -> new NoSuchElementException("no owner " + id));
        if (!openInView) {
            load(owner);
        }
        return owner;
    }

    @Transactional(readOnly = true)
    public long visitCount(long ownerId) {
        return visits.countByPetOwnerId(ownerId);
    }

    /** Books a visit: the pet's SELECT, then the visit's INSERT ... RETURNING id (IDENTITY). */
    @Transactional
    public Visit book(long petId, String description) {
        Pet pet = pets.findById(petId).orElseThrow(() -> new NoSuchElementException("no pet " + petId));
        Visit visit = visits.save(new Visit(pet, LocalDate.now(), description));
        if (!openInView) {
            pet.getVisits().size();
            pet.getOwner().getName();
        }
        return visit;
    }

    private static void load(Owner owner) {
        owner.getPets().forEach(p -> p.getVisits().size());
    }
}
