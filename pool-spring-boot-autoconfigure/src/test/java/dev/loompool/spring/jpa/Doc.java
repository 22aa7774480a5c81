package dev.loompool.spring.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Lob;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import org.hibernate.annotations.Formula;

/**
 * A document with what a real schema has beside IDENTITY ids: a pooled SEQUENCE id (Hibernate's
 * {@code select nextval(...)}, outside a transaction under open-in-view), an optimistic
 * {@code @Version}, a {@code @Lob} (PostgreSQL: an {@code oid} large object) and a {@code @Formula}.
 */
@Entity
@Table(name = "docs")
class Doc {

    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "doc_seq")
    @SequenceGenerator(name = "doc_seq", sequenceName = "doc_seq", allocationSize = 5)
    Long id;

    @Version
    int version;

    String title;

    @Lob
    byte[] body;

    @Formula("length(title)")
    Integer titleLength;

    Doc() {
    }

    Doc(String title, byte[] body) {
        this.title = title;
        this.body = body;
    }
}
