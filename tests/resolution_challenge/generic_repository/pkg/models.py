class User:
    def __init__(self, user_id: int, email: str):
        self.user_id = user_id
        self.email = email
        self.active = True

    def deactivate(self) -> None:
        self.active = False

    def save(self) -> None:
        print("saving user", self.user_id)


class Invoice:
    def __init__(self, number: str):
        self.number = number

    def save(self) -> None:
        print("saving invoice", self.number)
