from pkg.models import Guest
from pkg.repo import UserRepository


def activate_account(repo: UserRepository, user_id: int) -> bool:
    if (user := repo.find(user_id)) is not None:
        user.activate()
        return True
    return False


def welcome_all(repo: UserRepository, ids: list[int]) -> int:
    sent = 0
    for user_id in ids:
        if user := repo.find(user_id):
            user.send_welcome()
            sent += 1
    return sent


def display_name(repo: UserRepository, user_id: int) -> str:
    return user.display_name() if (user := repo.find(user_id)) else "anonymous"


def start_session(repo: UserRepository, email: str, guest: Guest) -> None:
    visitor = repo.find_by_email(email) or guest
    visitor.activate()
