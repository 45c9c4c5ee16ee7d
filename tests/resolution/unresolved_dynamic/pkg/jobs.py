class ExportJob:
    def run(self):
        return "exported"


class CleanupJob:
    def run(self):
        return "cleaned"
