class Settings:
    class Database:
        def __init__(self, url):
            self.url = url

        def describe(self):
            return f"database at {self.url}"

        def connect(self):
            return ("connect", self.describe())

    def __init__(self, url):
        self.database = Settings.Database(url)

    def describe(self):
        return "settings"

    def connect(self):
        return self.database.connect()
