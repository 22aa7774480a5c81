-- SQL corpus: pool-benchmarks on PostgreSQL 15.20, pgjdbc 42.7.13, loompool commit 07719bf:
-- `java -jar pool-benchmarks.jar quick --pools LOOMPOOL` (P1-P8; P5's OLTP transaction, the others'
-- SELECT 1), recorded; plus the one text the chaos suite (src/test/.../chaos/Bank.java) sends
-- through the pool, copied from its source (its setup and checks go over plain admin connections).
-- P5's and the chaos suite's setup run over plain driver connections and are not here.
-- Format: each record starts with a line "-- @@ <kind>" and its text runs, newlines included, to the
-- line before the next such line (the newline before that line is not part of the text). Kinds:
-- query (ordinary query or DML: must let its connection go), schema (DDL or maintenance run at
-- start-up: the allowlist keeps it by design; counted only), session (changes the session for real:
-- must be kept). One record per distinct text, in the order first seen. Read by SqlCorpusTest.
-- Captured: a recorder patched into SqlClassifier.classify(String) for the capture only (not in the
-- tree) appended every distinct text the pool was handed (Connection.prepareStatement/prepareCall,
-- Statement.execute*/addBatch), i.e. exactly the text the pool passes on to the driver.
-- How to capture again: CAPTURE.md beside this file.
-- @@ query
SELECT 1
-- @@ query
UPDATE bench_accounts SET abalance = abalance + ? WHERE aid = ?
-- @@ query
SELECT abalance FROM bench_accounts WHERE aid = ?
-- @@ query
UPDATE bench_tellers SET tbalance = tbalance + ? WHERE tid = ?
-- @@ query
UPDATE bench_branches SET bbalance = bbalance + ? WHERE bid = ?
-- @@ query
INSERT INTO bench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)
-- @@ query
UPDATE accounts SET balance = balance + ? WHERE id = ?
