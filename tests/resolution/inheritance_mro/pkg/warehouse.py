from pkg.storage import CachedStorage, LoggedStorage


class Warehouse(CachedStorage, LoggedStorage):
    """MRO: Warehouse, CachedStorage, LoggedStorage, Storage, object."""

    def status(self):
        return [self.connect(), self.describe(), self.get("stock")]

    def shutdown(self):
        return self.flush()
