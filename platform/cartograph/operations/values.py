"""Value types: how a parameter is written, normalised and checked — once, for every surface.

A surface declares a parameter with the type's `python` annotation and its constraints (the CLI
as an argparse type, MCP and REST as pydantic fields), and every surface runs the same
`normalise`: a value that passes one surface passes all of them, and one refused is refused by
all with the same message. `normalise` is idempotent (a value already normalised by a surface's
own validation is normalised again by the operation, unchanged).

This is the one place to tighten what a repository name, a path in a repository or a symbol may
be.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from cartograph.errors import Invalid
from cartograph.names import MAX_REPO_NAME, repo_name, repo_path


class InvalidValue(Invalid, ValueError):
    """A parameter value out of its bounds or malformed. A ValueError too, so that pydantic
    (MCP tools, REST routes) reports it as a validation error of that parameter."""


@dataclass(frozen=True)
class ValueType:
    """Free text: surrounding whitespace removed, within `min_length` to `max_length`."""

    min_length: int | None = 1
    max_length: int | None = 1000
    pattern: str | None = None  # a regular expression the whole value matches (schemas only)
    describe: str = "text"  # how help texts name such a value

    @property
    def python(self) -> Any:
        return str

    def from_text(self, text: str) -> Any:
        """The value a command-line word stands for."""
        return self.normalise(text, "value")

    def normalise(self, value: Any, spelled: str) -> Any:
        if not isinstance(value, str):
            raise InvalidValue(f"`{spelled}` is {self.describe}")
        text = value.strip()
        if "\0" in text:
            raise InvalidValue(f"`{spelled}` holds a NUL character")
        self._check_length(text, spelled)
        return text

    def _check_length(self, text: str, spelled: str) -> None:
        if self.min_length is not None and len(text) < self.min_length:
            raise InvalidValue(f"`{spelled}` is empty" if self.min_length == 1 else
                               f"`{spelled}` has at least {self.min_length} characters")  # fmt: skip
        if self.max_length is not None and len(text) > self.max_length:
            raise InvalidValue(f"`{spelled}` has at most {self.max_length} characters")


Text = ValueType


@dataclass(frozen=True)
class PatchText(ValueType):
    """A unified diff, kept byte for byte (a trailing blank context line matters); empty is
    allowed (an empty change). On the command line: a file, or `-` for standard input."""

    min_length: int | None = None
    max_length: int | None = 20 * 1024 * 1024
    describe: str = "a unified diff"

    def from_text(self, text: str) -> Any:
        import sys
        from pathlib import Path

        try:
            data = sys.stdin.buffer.read() if text == "-" else Path(text).read_bytes()
        except OSError as exc:
            raise InvalidValue(f"cannot read the patch {text}: {exc.strerror}") from None
        return self.normalise(data.decode("utf-8", "surrogateescape"), "patch")

    def normalise(self, value: Any, spelled: str) -> Any:
        if not isinstance(value, str):
            raise InvalidValue(f"`{spelled}` is {self.describe}")
        if "\0" in value:
            raise InvalidValue(f"`{spelled}` holds a NUL character: send a text diff")
        self._check_length(value, spelled)
        return value


@dataclass(frozen=True)
class Integer(ValueType):
    """A whole number; its bounds are the parameter's (`Param.minimum`, `Param.maximum`)."""

    min_length: int | None = None
    max_length: int | None = None
    describe: str = "a whole number"

    @property
    def python(self) -> Any:
        return int

    def from_text(self, text: str) -> Any:
        try:
            return int(text)
        except ValueError:
            raise InvalidValue(f"{text!r} is not a whole number") from None

    def normalise(self, value: Any, spelled: str) -> Any:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidValue(f"`{spelled}` is a whole number")
        return value


@dataclass(frozen=True)
class Flag(ValueType):
    """Yes or no (a flag on the command line)."""

    min_length: int | None = None
    max_length: int | None = None
    describe: str = "true or false"

    @property
    def python(self) -> Any:
        return bool

    def normalise(self, value: Any, spelled: str) -> Any:
        if not isinstance(value, bool):
            raise InvalidValue(f"`{spelled}` is true or false")
        return value


@dataclass(frozen=True)
class Choice(ValueType):
    """One of a few words."""

    choices: tuple[str, ...] = ()
    min_length: int | None = None
    max_length: int | None = None

    @property
    def python(self) -> Any:
        return Literal[self.choices]

    def normalise(self, value: Any, spelled: str) -> Any:
        if value not in self.choices:
            raise InvalidValue(f"`{spelled}` is one of {', '.join(self.choices)}, not {value!r}")
        return value


@dataclass(frozen=True)
class CommaList(ValueType):
    """Words written comma-separated (`dead,unknown`), each one of `choices`: a list of them."""

    choices: tuple[str, ...] = ()
    noun: str = "value"  # what one word is called in messages ("kind", "verdict")
    min_length: int | None = None
    max_length: int | None = 1000

    @property
    def python(self) -> Any:
        return str

    def normalise(self, value: Any, spelled: str) -> Any:
        if isinstance(value, str):
            if len(value) > (self.max_length or len(value)):
                raise InvalidValue(f"`{spelled}` has at most {self.max_length} characters")
            words = [word.strip() for word in value.split(",")]
        elif isinstance(value, list | tuple):
            words = [str(word).strip() for word in value]
        else:
            raise InvalidValue(f"`{spelled}` is a comma-separated list")
        words = list(dict.fromkeys(word for word in words if word))
        unknown = [word for word in words if word not in self.choices]
        if unknown:
            raise InvalidValue(
                f"unknown {self.noun} {unknown[0]!r}; {self.noun}s are {', '.join(self.choices)}"
            )
        return words


@dataclass(frozen=True)
class TextList(ValueType):
    """Several texts (repeat the option, or a JSON array), each within `item` bounds."""

    item: ValueType = field(default_factory=ValueType)
    max_items: int = 100
    min_length: int | None = None
    max_length: int | None = None

    @property
    def python(self) -> Any:
        return list[str]

    def from_text(self, text: str) -> Any:
        return self.item.from_text(text)

    def normalise(self, value: Any, spelled: str) -> Any:
        if isinstance(value, str) or not isinstance(value, list | tuple):
            raise InvalidValue(f"`{spelled}` is a list")
        if len(value) > self.max_items:
            raise InvalidValue(f"`{spelled}` holds at most {self.max_items} items")
        return [self.item.normalise(item, spelled) for item in value]


@dataclass(frozen=True)
class RepoName(ValueType):
    """The name a repository was indexed or tracked under (cartograph.names.repo_name)."""

    max_length: int | None = MAX_REPO_NAME
    describe: str = "a repository name"

    def normalise(self, value: Any, spelled: str) -> Any:
        try:
            return repo_name(value)
        except Invalid as exc:
            raise InvalidValue(f"`{spelled}`: {exc}") from None


@dataclass(frozen=True)
class RepoPath(ValueType):
    """A path inside a repository in its one normal form (cartograph.names.repo_path): never
    absolute, never climbing out with `..`. `min_length=0` admits "" (the whole repository);
    `folder` keeps a trailing `/` (a folder, or a prefix that stops at one)."""

    describe: str = "a path inside a repository"
    folder: bool = False

    def normalise(self, value: Any, spelled: str) -> Any:
        if not isinstance(value, str):
            raise InvalidValue(f"`{spelled}` is {self.describe}")
        self._check_length(value.strip(), spelled)
        try:
            return repo_path(value, folder=self.folder, empty=self.min_length == 0)
        except Invalid as exc:
            raise InvalidValue(f"`{spelled}`: {exc}") from None


@dataclass(frozen=True)
class SymbolRef(ValueType):
    """A symbol: its name, a dotted suffix of its qualified name, or its id
    `repo:path#qualname`."""

    describe: str = "a name, a qualified name or an id repo:path#qualname"


@dataclass(frozen=True)
class Target(ValueType):
    """A file path, a folder or a symbol (history, co-change and ownership questions)."""

    describe: str = "a file path, a folder or a symbol"


@dataclass(frozen=True)
class CommitSha(ValueType):
    """A commit id in hexadecimal, abbreviated to 7 characters or more."""

    min_length: int | None = 7
    max_length: int | None = 40
    pattern: str | None = "^[0-9a-f]{7,40}$"
    describe: str = "a commit id (7 to 40 hexadecimal digits)"

    def normalise(self, value: Any, spelled: str) -> Any:
        text = super().normalise(value, spelled)
        if any(c not in "0123456789abcdef" for c in text):
            raise InvalidValue(f"`{spelled}` is {self.describe}")
        return text
