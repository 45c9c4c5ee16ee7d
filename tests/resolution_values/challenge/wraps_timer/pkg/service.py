from pkg.timing import timed


@timed
def load_user(user_id):
    return {"id": user_id}


def plain(user_id):
    return user_id


class Repository:
    @timed
    def find(self, user_id):
        return load_user(user_id)

    def all(self):
        return [self.find(i) for i in range(3)]


def main():
    repo = Repository()
    return repo.find(1), plain(2)
