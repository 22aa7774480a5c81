INSERT INTO sample_account (id, owner, balance) VALUES
    (1, 'Ada', 1000.00), (2, 'Brian', 750.00), (3, 'Grace', 1200.00), (4, 'Linus', 500.00), (5, 'Margaret', 900.00);
