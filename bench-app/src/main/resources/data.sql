-- 1,000 owners, two pets each, two visits per pet: ids 1..1000 and 1..2000 on a fresh database.
INSERT INTO owner (name, city) SELECT 'owner ' || g, 'city ' || (g % 50) FROM generate_series(1, 1000) g;
INSERT INTO pet (name, owner_id) SELECT 'pet ' || g, (g + 1) / 2 FROM generate_series(1, 2000) g;
INSERT INTO visit (date, description, pet_id) SELECT DATE '2025-01-01' + (g % 365), 'visit ' || g, (g + 1) / 2
    FROM generate_series(1, 4000) g;
