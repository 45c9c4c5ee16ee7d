class Database:
    def query(self, sql):
        return sql

    def insert(self, row):
        return row

    def close(self):
        return None


class Config:
    def get(self, key):
        return key


class OtherConfig:
    def get(self, key):
        return None
