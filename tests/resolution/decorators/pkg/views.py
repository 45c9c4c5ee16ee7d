from pkg.caching import cached
from pkg.registry import register_model
from pkg.resilience import retry
from pkg.web import App

app = App()


@register_model
class Profile:
    def __init__(self, name):
        self._name = name

    @property
    def name(self):
        return self._name

    @staticmethod
    def normalize(name):
        return name.strip()


@cached
def load_profile(user_id):
    return Profile(str(user_id))


@retry(3)
def fetch_remote(user_id):
    return load_profile(user_id)


@app.route("/profile")
def profile_view(user_id):
    return fetch_remote(user_id).name
