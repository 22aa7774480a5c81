-- SQL corpus: Spring PetClinic (spring-projects/spring-petclinic edf4db28a, Spring Boot 4.0.3,
-- Hibernate ORM 7.2.4.Final, MySQL Connector/J 9.6.0) with loompool's starter (commit 07719bf) on
-- MariaDB 10.11.19 (dialect MYSQL), a database of its own, database=mysql, its db/mysql scripts.
-- Two runs: the application (spring-boot:run) driven over HTTP through every page: vets (both
-- views, paged), owner search (all, paged, one, none), owner show/edit/create, pet create/edit,
-- visit create, actuator health; then its own test suite (57 tests, the Docker-only ones skipped,
-- the others pointed at the server by SPRING_DATASOURCE_URL; shouldFindSingleOwnerWithPet failed
-- only because the HTTP run had given owner 1 a second pet).
-- Format: each record starts with a line "-- @@ <kind>" and its text runs, newlines included, to the
-- line before the next such line (the newline before that line is not part of the text). Kinds:
-- query (ordinary query or DML: must let its connection go), schema (DDL or maintenance run at
-- start-up: the allowlist keeps it by design; counted only), session (changes the session for real:
-- must be kept). One record per distinct text, in the order first seen. Read by SqlCorpusTest.
-- Captured: a recorder patched into SqlClassifier.classify(String) for the capture only (not in the
-- tree) appended every distinct text the pool was handed (Connection.prepareStatement/prepareCall,
-- Statement.execute*/addBatch), i.e. exactly the text the pool passes on to the driver.
-- How to capture again: CAPTURE.md beside this file.
-- @@ schema
CREATE TABLE IF NOT EXISTS vets ( id INT(4) UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, first_name VARCHAR(30), last_name VARCHAR(30), INDEX(last_name) ) engine=InnoDB
-- @@ schema
CREATE TABLE IF NOT EXISTS specialties ( id INT(4) UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(80), INDEX(name) ) engine=InnoDB
-- @@ schema
CREATE TABLE IF NOT EXISTS vet_specialties ( vet_id INT(4) UNSIGNED NOT NULL, specialty_id INT(4) UNSIGNED NOT NULL, FOREIGN KEY (vet_id) REFERENCES vets(id), FOREIGN KEY (specialty_id) REFERENCES specialties(id), UNIQUE (vet_id,specialty_id) ) engine=InnoDB
-- @@ schema
CREATE TABLE IF NOT EXISTS types ( id INT(4) UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(80), INDEX(name) ) engine=InnoDB
-- @@ schema
CREATE TABLE IF NOT EXISTS owners ( id INT(4) UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, first_name VARCHAR(30), last_name VARCHAR(30), address VARCHAR(255), city VARCHAR(80), telephone VARCHAR(20), INDEX(last_name) ) engine=InnoDB
-- @@ schema
CREATE TABLE IF NOT EXISTS pets ( id INT(4) UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(30), birth_date DATE, type_id INT(4) UNSIGNED NOT NULL, owner_id INT(4) UNSIGNED, INDEX(name), FOREIGN KEY (owner_id) REFERENCES owners(id), FOREIGN KEY (type_id) REFERENCES types(id) ) engine=InnoDB
-- @@ schema
CREATE TABLE IF NOT EXISTS visits ( id INT(4) UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, pet_id INT(4) UNSIGNED, visit_date DATE, description VARCHAR(255), FOREIGN KEY (pet_id) REFERENCES pets(id) ) engine=InnoDB
-- @@ query
INSERT IGNORE INTO vets VALUES (1, 'James', 'Carter')
-- @@ query
INSERT IGNORE INTO vets VALUES (2, 'Helen', 'Leary')
-- @@ query
INSERT IGNORE INTO vets VALUES (3, 'Linda', 'Douglas')
-- @@ query
INSERT IGNORE INTO vets VALUES (4, 'Rafael', 'Ortega')
-- @@ query
INSERT IGNORE INTO vets VALUES (5, 'Henry', 'Stevens')
-- @@ query
INSERT IGNORE INTO vets VALUES (6, 'Sharon', 'Jenkins')
-- @@ query
INSERT IGNORE INTO specialties VALUES (1, 'radiology')
-- @@ query
INSERT IGNORE INTO specialties VALUES (2, 'surgery')
-- @@ query
INSERT IGNORE INTO specialties VALUES (3, 'dentistry')
-- @@ query
INSERT IGNORE INTO vet_specialties VALUES (2, 1)
-- @@ query
INSERT IGNORE INTO vet_specialties VALUES (3, 2)
-- @@ query
INSERT IGNORE INTO vet_specialties VALUES (3, 3)
-- @@ query
INSERT IGNORE INTO vet_specialties VALUES (4, 2)
-- @@ query
INSERT IGNORE INTO vet_specialties VALUES (5, 1)
-- @@ query
INSERT IGNORE INTO types VALUES (1, 'cat')
-- @@ query
INSERT IGNORE INTO types VALUES (2, 'dog')
-- @@ query
INSERT IGNORE INTO types VALUES (3, 'lizard')
-- @@ query
INSERT IGNORE INTO types VALUES (4, 'snake')
-- @@ query
INSERT IGNORE INTO types VALUES (5, 'bird')
-- @@ query
INSERT IGNORE INTO types VALUES (6, 'hamster')
-- @@ query
INSERT IGNORE INTO owners VALUES (1, 'George', 'Franklin', '110 W. Liberty St.', 'Madison', '6085551023')
-- @@ query
INSERT IGNORE INTO owners VALUES (2, 'Betty', 'Davis', '638 Cardinal Ave.', 'Sun Prairie', '6085551749')
-- @@ query
INSERT IGNORE INTO owners VALUES (3, 'Eduardo', 'Rodriquez', '2693 Commerce St.', 'McFarland', '6085558763')
-- @@ query
INSERT IGNORE INTO owners VALUES (4, 'Harold', 'Davis', '563 Friendly St.', 'Windsor', '6085553198')
-- @@ query
INSERT IGNORE INTO owners VALUES (5, 'Peter', 'McTavish', '2387 S. Fair Way', 'Madison', '6085552765')
-- @@ query
INSERT IGNORE INTO owners VALUES (6, 'Jean', 'Coleman', '105 N. Lake St.', 'Monona', '6085552654')
-- @@ query
INSERT IGNORE INTO owners VALUES (7, 'Jeff', 'Black', '1450 Oak Blvd.', 'Monona', '6085555387')
-- @@ query
INSERT IGNORE INTO owners VALUES (8, 'Maria', 'Escobito', '345 Maple St.', 'Madison', '6085557683')
-- @@ query
INSERT IGNORE INTO owners VALUES (9, 'David', 'Schroeder', '2749 Blackhawk Trail', 'Madison', '6085559435')
-- @@ query
INSERT IGNORE INTO owners VALUES (10, 'Carlos', 'Estaban', '2335 Independence La.', 'Waunakee', '6085555487')
-- @@ query
INSERT IGNORE INTO pets VALUES (1, 'Leo', '2000-09-07', 1, 1)
-- @@ query
INSERT IGNORE INTO pets VALUES (2, 'Basil', '2002-08-06', 6, 2)
-- @@ query
INSERT IGNORE INTO pets VALUES (3, 'Rosy', '2001-04-17', 2, 3)
-- @@ query
INSERT IGNORE INTO pets VALUES (4, 'Jewel', '2000-03-07', 2, 3)
-- @@ query
INSERT IGNORE INTO pets VALUES (5, 'Iggy', '2000-11-30', 3, 4)
-- @@ query
INSERT IGNORE INTO pets VALUES (6, 'George', '2000-01-20', 4, 5)
-- @@ query
INSERT IGNORE INTO pets VALUES (7, 'Samantha', '1995-09-04', 1, 6)
-- @@ query
INSERT IGNORE INTO pets VALUES (8, 'Max', '1995-09-04', 1, 6)
-- @@ query
INSERT IGNORE INTO pets VALUES (9, 'Lucky', '1999-08-06', 5, 7)
-- @@ query
INSERT IGNORE INTO pets VALUES (10, 'Mulligan', '1997-02-24', 2, 8)
-- @@ query
INSERT IGNORE INTO pets VALUES (11, 'Freddy', '2000-03-09', 5, 9)
-- @@ query
INSERT IGNORE INTO pets VALUES (12, 'Lucky', '2000-06-24', 2, 10)
-- @@ query
INSERT IGNORE INTO pets VALUES (13, 'Sly', '2002-06-08', 1, 10)
-- @@ query
INSERT IGNORE INTO visits VALUES (1, 7, '2010-03-04', 'rabies shot')
-- @@ query
INSERT IGNORE INTO visits VALUES (2, 8, '2011-03-04', 'rabies shot')
-- @@ query
INSERT IGNORE INTO visits VALUES (3, 8, '2009-06-04', 'neutered')
-- @@ query
INSERT IGNORE INTO visits VALUES (4, 7, '2008-09-04', 'spayed')
-- @@ query
SELECT @@character_set_database, @@sql_mode
-- @@ query
select v1_0.id,v1_0.first_name,v1_0.last_name from vets v1_0
-- @@ query
select s1_0.vet_id,s1_1.id,s1_1.name from vet_specialties s1_0 join specialties s1_1 on s1_1.id=s1_0.specialty_id where s1_0.vet_id in (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
-- @@ query
select v1_0.id,v1_0.first_name,v1_0.last_name from vets v1_0 limit ?,?
-- @@ query
select count(v1_0.id) from vets v1_0
-- @@ query
select s1_0.vet_id,s1_1.id,s1_1.name from vet_specialties s1_0 join specialties s1_1 on s1_1.id=s1_0.specialty_id where s1_0.vet_id=?
-- @@ query
select o1_0.id,o1_0.address,o1_0.city,o1_0.first_name,o1_0.last_name,o1_0.telephone from owners o1_0 where o1_0.last_name like ? escape '\\' limit ?
-- @@ query
select p1_0.owner_id,p1_0.id,p1_0.birth_date,p1_0.name,t1_0.id,t1_0.name from pets p1_0 left join types t1_0 on t1_0.id=p1_0.type_id where p1_0.owner_id in (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) order by p1_0.name
-- @@ query
select v1_0.pet_id,v1_0.id,v1_0.visit_date,v1_0.description from visits v1_0 where v1_0.pet_id in (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) order by v1_0.visit_date
-- @@ query
select count(o1_0.id) from owners o1_0 where o1_0.last_name like ? escape '\\'
-- @@ query
select o1_0.id,o1_0.address,o1_0.city,o1_0.first_name,o1_0.last_name,o1_0.telephone from owners o1_0 where o1_0.last_name like ? escape '\\' limit ?,?
-- @@ query
select p1_0.owner_id,p1_0.id,p1_0.birth_date,p1_0.name,t1_0.id,t1_0.name from pets p1_0 left join types t1_0 on t1_0.id=p1_0.type_id where p1_0.owner_id=? order by p1_0.name
-- @@ query
select v1_0.pet_id,v1_0.id,v1_0.visit_date,v1_0.description from visits v1_0 where v1_0.pet_id=? order by v1_0.visit_date
-- @@ query
select o1_0.id,o1_0.address,o1_0.city,o1_0.first_name,o1_0.last_name,o1_0.telephone,p1_0.owner_id,p1_0.id,p1_0.birth_date,p1_0.name,t1_0.id,t1_0.name from owners o1_0 left join pets p1_0 on o1_0.id=p1_0.owner_id left join types t1_0 on t1_0.id=p1_0.type_id where o1_0.id=? order by p1_0.name
-- @@ query
update owners set address=?,city=?,first_name=?,last_name=?,telephone=? where id=?
-- @@ query
insert into owners (address,city,first_name,last_name,telephone) values (?,?,?,?,?)
-- @@ query
select pt1_0.id,pt1_0.name from types pt1_0 order by pt1_0.name
-- @@ query
insert into pets (birth_date,name,type_id) values (?,?,?)
-- @@ query
update pets set owner_id=? where id=?
-- @@ query
select pt1_0.id,pt1_0.name from types pt1_0 where pt1_0.id=?
-- @@ query
update pets set birth_date=?,name=?,type_id=? where id=?
-- @@ query
insert into visits (visit_date,description) values (?,?)
-- @@ query
update visits set pet_id=? where id=?
-- @@ query
select o1_0.id,o1_0.address,o1_0.city,o1_0.first_name,o1_0.last_name,o1_0.telephone from owners o1_0 where o1_0.last_name like ? escape '\\'
