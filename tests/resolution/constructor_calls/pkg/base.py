class Connection:
    def __init__(self, url):
        self.url = url
