from __future__ import annotations

import typing

if typing.TYPE_CHECKING:
    from pkg.models import Team, User


def add_member(team: Team, user: User) -> None:
    team.add(user)
