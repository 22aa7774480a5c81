package dev.loompool.benchapp;

import java.time.LocalDate;
import java.util.List;
import java.util.NoSuchElementException;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * The pages: a list, a detail, a write, and {@code /slow} (a transaction, a 20 ms call to another
 * service, another transaction). The views are built here, after the service's transaction: under
 * open-in-view that walks the lazy collections, between statements on the request's session.
 */
@RestController
public class ClinicController {

    private final ClinicService clinic;

    ClinicController(ClinicService clinic) {
        this.clinic = clinic;
    }

    record VisitView(long id, LocalDate date, String description) {
    }

    record PetView(long id, String name, List<VisitView> visits) {
    }

    record OwnerView(long id, String name, String city, List<PetView> pets) {
    }

    record Booked(long id, long pet, String petName, String owner, int visits) {
    }

    record Slow(OwnerView owner, long visits) {
    }

    @GetMapping("/owners")
    List<OwnerView> owners(@RequestParam(defaultValue = "0") int page) {
        return clinic.page(page).stream().map(ClinicController::view).toList();
    }

    @GetMapping("/owners/{id}")
    OwnerView owner(@PathVariable long id) {
        return view(clinic.owner(id));
    }

    @PostMapping("/pets/{id}/visits")
    @ResponseStatus(HttpStatus.CREATED)
    Booked book(@PathVariable long id, @RequestParam(defaultValue = "check-up") String description) {
        Visit v = clinic.book(id, description);
        Pet pet = v.getPet();
        return new Booked(v.getId(), pet.getId(), pet.getName(), pet.getOwner().getName(), pet.getVisits().size());
    }

    /** Stands for a page that calls another service between two transactions. */
    @GetMapping("/slow")
    Slow slow(@RequestParam long owner) throws InterruptedException {
        OwnerView view = view(clinic.owner(owner));
        Thread.sleep(20); // the downstream HTTP call
        return new Slow(view, clinic.visitCount(owner));
    }

    @ExceptionHandler(NoSuchElementException.class)
    @ResponseStatus(HttpStatus.NOT_FOUND)
    String notFound(NoSuchElementException e) {
        return e.getMessage();
    }

    private static OwnerView view(Owner o) {
        return new OwnerView(o.getId(), o.getName(), o.getCity(), o.getPets().stream()
                .map(p -> new PetView(p.getId(), p.getName(), p.getVisits().stream()
                        .map(v -> new VisitView(v.getId(), v.getDate(), v.getDescription())).toList()))
                .toList());
    }
}
