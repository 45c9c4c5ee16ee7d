class Model:
    def __init__(self, **fields):
        self.fields = fields

    def validate(self):
        return bool(self.fields)

    def save(self):
        return dict(self.fields)
