from typing import Self


class Query:
    def __init__(self, table: str, clauses: list[str], limit: int | None):
        self.table = table
        self.clauses = clauses
        self.limit = limit

    def to_sql(self) -> str:
        sql = f"SELECT * FROM {self.table}"
        if self.clauses:
            sql += " WHERE " + " AND ".join(self.clauses)
        if self.limit is not None:
            sql += f" LIMIT {self.limit}"
        return sql


class QueryBuilder:
    def __init__(self, table: str):
        self.table = table
        self.clauses: list[str] = []
        self.order: list[str] = []
        self.max_rows: int | None = None

    def where(self, clause: str) -> "QueryBuilder":
        self.clauses.append(clause)
        return self

    def limit(self, rows: int) -> Self:
        self.max_rows = rows
        return self

    def order_by(self, column):
        self.order.append(column)
        return self

    def build(self) -> Query:
        return Query(self.table, list(self.clauses), self.max_rows)


class UpdateBuilder:
    def __init__(self, table: str):
        self.table = table
        self.assignments: dict[str, str] = {}
        self.condition = "1 = 1"

    def set(self, column: str, value: str) -> "UpdateBuilder":
        self.assignments[column] = value
        return self

    def where(self, clause: str) -> "UpdateBuilder":
        self.condition = clause
        return self

    def build(self) -> str:
        pairs = ", ".join(f"{k} = {v}" for k, v in self.assignments.items())
        return f"UPDATE {self.table} SET {pairs} WHERE {self.condition}"
