class Repository:
    table = "records"

    @classmethod
    def table_name(cls):
        return cls.table

    def save(self, entity):
        if self.validate(entity):
            self.write(entity)
        return entity

    def validate(self, entity):
        return entity is not None

    def write(self, entity):
        raise NotImplementedError
