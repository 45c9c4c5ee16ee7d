class User:
    def __init__(self, name, email):
        self.name = name
        self.email = email

    def display_name(self):
        return f"{self.name} <{self.email}>"


class Bot:
    def display_name(self):
        return "bot"


class Team:
    def __init__(self, name):
        self.name = name
        self.member_names = []

    def add(self, user):
        self.member_names = [*self.member_names, user.name]
