-- Schema version 8: the base order on INHERITS edges (1 = the first declared base, 0 on
-- every other edge), so a method resolution order is computed from the graph alone; and a
-- version on each claim, incremented by every write, for the claims' compare-and-set.

ALTER TABLE edges ADD COLUMN "order" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE claims ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
