from pkg.base import Model


class TimestampedModel(Model):
    def __init__(self, **fields):
        super().__init__(**fields)
        self.updated_at = None

    def touch(self):
        self.updated_at = "now"

    def save(self):
        self.touch()
        return super().save()


class Article(TimestampedModel):
    def __init__(self, title, **fields):
        super().__init__(title=title, **fields)

    def save(self):
        if not super().validate():
            raise ValueError("empty article")
        return super().save()


class Draft(Article):
    def save(self):
        # Skip Article's validation: resolve after Article in Draft's MRO.
        return super(Article, self).save()

    def publish(self):
        return super(Draft, self).save()
