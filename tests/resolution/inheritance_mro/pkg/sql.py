from pkg.base import Repository


class SqlRepository(Repository):
    table = "sql_records"

    @classmethod
    def create_statement(cls):
        return "CREATE TABLE " + cls.table_name()

    def write(self, entity):
        return ("INSERT", self.table_name(), entity)

    def save_all(self, entities):
        return [self.save(entity) for entity in entities]

    def upsert(self, entity):
        return self.write(entity)
