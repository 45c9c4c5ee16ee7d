from pkg.models import Invoice, User
from pkg.repository import Repository


class UserRepository(Repository[User]):
    def find_by_email(self, email: str) -> User | None:
        for user in self.all():
            if user.email == email:
                return user
        return None


def deactivate_user(repo: UserRepository, user_id: int) -> None:
    user = repo.get(user_id)
    user.deactivate()
    user.save()


def reactivate(repo: UserRepository, email: str) -> None:
    user = repo.find_by_email(email)
    if user is not None:
        user.save()


def archive_invoice(invoices: Repository[Invoice], key: int) -> None:
    invoices.get(key).save()
