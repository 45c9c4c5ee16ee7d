"""Settings read from the environment, parsed one way everywhere: a boolean is one of a few
spellings (any case), and anything else is refused rather than read as "off" — a server told
`CARTOGRAPH_REQUIRE_TOKENS=yes` must not start open."""

from __future__ import annotations

import os

from cartograph.errors import Invalid

TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off", ""})


def parse_bool(value: str, name: str) -> bool:
    text = value.strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise Invalid(
        f"{name}={value!r} is not a boolean: use one of {', '.join(sorted(TRUE | FALSE - {''}))}"
    )


def env_bool(name: str, default: bool = False) -> bool:
    """The boolean setting `name` (unset: `default`)."""
    value = os.environ.get(name)
    return default if value is None else parse_bool(value, name)


def env_list(name: str) -> tuple[str, ...]:
    """A comma-separated setting, its items stripped and empty ones dropped."""
    return tuple(item.strip() for item in os.environ.get(name, "").split(",") if item.strip())
