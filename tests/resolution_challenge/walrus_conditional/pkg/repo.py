from typing import Optional

from pkg.models import User


class UserRepository:
    def __init__(self):
        self._rows: dict[int, User] = {}

    def find(self, user_id: int) -> User | None:
        return self._rows.get(user_id)

    def find_by_email(self, email: str) -> Optional["User"]:
        return next((u for u in self._rows.values() if u.email == email), None)
