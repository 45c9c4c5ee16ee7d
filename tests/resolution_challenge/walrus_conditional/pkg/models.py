class User:
    def __init__(self, user_id: int, email: str):
        self.user_id = user_id
        self.email = email
        self.active = False

    def activate(self) -> None:
        self.active = True

    def send_welcome(self) -> None:
        print("welcome", self.email)

    def display_name(self) -> str:
        return self.email.split("@")[0]


class Guest:
    def activate(self) -> None:
        print("guest session started")

    def display_name(self) -> str:
        return "guest"
