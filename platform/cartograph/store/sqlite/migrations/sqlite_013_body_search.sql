-- Schema version 13: the words of each symbol's body (identifiers, strings and comments of the
-- lines it holds less its members'), searched on their own so a long body does not weigh down
-- a match on a name (`locate`, and `search` beside the names). Its rowid is the symbol's, as in
-- symbol_search; filled by the next index run (the index format changed with it).
CREATE VIRTUAL TABLE IF NOT EXISTS symbol_body USING fts5 (
    body,
    tokenize = 'unicode61 remove_diacritics 2'
);
