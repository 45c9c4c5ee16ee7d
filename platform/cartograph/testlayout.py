"""Which files, classes and functions are tests, as the project's own test runner sees them.

A repository's runner configuration is read when it is indexed (`read_test_layout`):
pytest's `testpaths`, `python_files`, `python_classes` and `python_functions` (pytest.ini,
pyproject.toml, tox.ini or setup.cfg, the first that configures pytest, as pytest picks it);
the `unittest discover`, `manage.py test` and `python -m unittest` command lines of tox.ini,
setup.cfg, a Makefile, noxfile.py, pyproject.toml and CI workflows; Django's discovery
(`test*.py`) in a Django project; Jest's `testMatch`/`testRegex`, Vitest's `include` and
Mocha's `spec`. Today's conventions are always part of it (a `tests/` folder, `test_*.py`,
`*.test.js`, `__tests__/`, `*_test.go`, `*Test.java`, …): a configuration adds to them, so a
file the conventions call a test stays one (selecting a test too many is the safe error).

Two questions are asked of it: is a file *test code* (the runner's test files, the files in
its test folders, conftest.py: never the library a fix belongs in), and is a symbol *a test*
(what the runner collects and a command can name).
"""

from __future__ import annotations

import configparser
import fnmatch
import functools
import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from cartograph.configfiles import Unreadable, load_json, load_toml
from cartograph.languages import language_of

# the kinds of symbol a test is (and a test file's symbols that enclose a call)
ENCLOSING_KINDS = frozenset({"function", "method"})
# test functions by name, for the languages whose runners collect them so
TEST_NAME_PREFIXES = {
    "python": ("test",),
    "go": ("Test", "Benchmark", "Fuzz", "Example"),
}
PYTEST_FILES = ("test_*.py", "*_test.py")  # pytest's defaults
PYTEST_CLASSES = ("Test",)
PYTEST_FUNCTIONS = ("test",)
UNITTEST_PATTERN = "test*.py"  # unittest's and Django's discovery default
TEST_DIRS = frozenset({"tests"})
VENDORED_DIRS = ("node_modules/", "vendor/", "site-packages/", ".venv/", "build/", "dist/")


class Symbolic(Protocol):
    """What `is_test` reads of a symbol (a `model.SymbolRow`)."""

    repo: str
    path: str
    kind: str
    name: str
    decorators: list[str]


@dataclass(frozen=True, slots=True)
class TestLayout:
    """A repository's tests as its runners collect them. Every pattern adds to the
    conventions; `read_from` names the settings it was read from ("" for the defaults)."""

    __test__ = False  # a layout, not a test class (pytest would try to collect `Test*`)

    python_files: tuple[str, ...] = PYTEST_FILES  # globs on the file name, or on the path
    python_classes: tuple[str, ...] = PYTEST_CLASSES  # prefixes or globs
    python_functions: tuple[str, ...] = PYTEST_FUNCTIONS  # prefixes or globs
    test_dirs: tuple[str, ...] = ()  # folders whose every file is test code (testpaths, -s)
    js_globs: tuple[str, ...] = ()  # Jest testMatch, Vitest include, Mocha spec (from the root)
    js_regexes: tuple[str, ...] = ()  # Jest testRegex (searched in "/" + the path)
    read_from: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, list[str]]:
        return {key: list(value) for key, value in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> TestLayout:
        if not data:
            return DEFAULT_LAYOUT
        known = {key: tuple(data[key]) for key in cls.__dataclass_fields__ if key in data}
        return cls(**known)

    def is_test_file(self, path: str) -> bool:
        """Test code: a file the runner collects tests from, or one of its test folders'."""
        if is_conventional_test_path(path):
            return True
        if self.test_dirs and any(path.startswith(f"{d}/") for d in self.test_dirs):
            return True
        if path.endswith((".py", ".pyi")):
            return self._python_file(path)
        return any(match(path) for match in self._js_matchers())

    def is_test(self, symbol: Symbolic) -> bool:
        """A test a runner selects: a Python function or method named as `python_functions`
        says (`test*` by default) in a test file; a `Test*` function of a Go test file; a
        method marked @Test of a Java/Kotlin test class; elsewhere (JavaScript/TypeScript:
        anonymous `it` callbacks) the test file itself. A method's class is not narrowed by
        `python_classes`: a `unittest.TestCase` subclass of any name is collected too."""
        if not self.is_test_file(symbol.path):
            return False
        language = language_of(symbol.path) or ""
        if language in TEST_NAME_PREFIXES:
            return symbol.kind in ENCLOSING_KINDS and self.is_test_name(language, symbol.name)
        if language in ("java", "kotlin"):
            return symbol.kind == "method" and any(
                d.lstrip("@").partition("(")[0].rpartition(".")[2] == "Test"
                for d in symbol.decorators
            )
        return symbol.kind == "module"

    def is_test_name(self, language: str, name: str) -> bool:
        """Whether a function of a test file of `language` is named as a test."""
        if language == "python":
            return _prefix_or_glob(name, self.python_functions)
        return name.startswith(TEST_NAME_PREFIXES.get(language, ()))

    def is_test_class_name(self, name: str) -> bool:
        """Whether pytest collects a class of this name (`python_classes`)."""
        return _prefix_or_glob(name, self.python_classes)

    def _python_file(self, path: str) -> bool:
        name = path.rpartition("/")[2]
        for pattern in self.python_files:
            if "/" not in pattern:
                if fnmatch.fnmatchcase(name, pattern):
                    return True
            elif fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(path, f"*/{pattern}"):
                return True
        return False

    def _js_matchers(self) -> list[Callable[[str], object]]:
        return _matchers_of(self)


# the compiled JavaScript patterns, by layout (a frozen, slotted dataclass holds no cache)
_MATCHERS: dict[tuple[tuple[str, ...], tuple[str, ...]], list[Callable[[str], object]]] = {}


def _searcher(expression: re.Pattern[str]) -> Callable[[str], object]:
    return lambda path: expression.search(f"/{path}")


def _matchers_of(layout: TestLayout) -> list[Callable[[str], object]]:
    key = (layout.js_globs, layout.js_regexes)
    found = _MATCHERS.get(key)
    if found is None:
        found = []
        for glob in layout.js_globs:
            found.append(glob_regex(glob).fullmatch)
        for text in layout.js_regexes:
            try:
                expression = re.compile(text)
            except re.error:
                continue  # a JavaScript regular expression Python cannot read: conventions
            found.append(_searcher(expression))
        _MATCHERS[key] = found
    return found


DEFAULT_LAYOUT = TestLayout()


class TestLayouts:
    """Every repository's test layout, as its last index read it (the defaults for one
    indexed before layouts were kept)."""

    __test__ = False

    def __init__(self, by_repo: Mapping[str, TestLayout]) -> None:
        self.by_repo = dict(by_repo)

    def of(self, repo: str) -> TestLayout:
        return self.by_repo.get(repo, DEFAULT_LAYOUT)

    def is_test_file(self, repo: str, path: str) -> bool:
        return self.of(repo).is_test_file(path)

    def is_test(self, symbol: Symbolic) -> bool:
        return self.of(symbol.repo).is_test(symbol)


def is_conventional_test_path(path: str) -> bool:
    """Test code by today's conventions, whatever a runner is configured to collect."""
    parts = path.split("/")
    name = parts[-1]
    if (
        name.startswith("test_")
        or name.endswith(("_test.py", "_tests.py", "_test.go", "Test.java", "Tests.java"))
        or name in ("conftest.py", "tests.py")  # tests.py: unittest's and Django's `test*.py`
        or ".test." in name
        or ".spec." in name
    ):
        return True
    if "__tests__" in parts[:-1]:
        return True
    # `tests/` anywhere; `test/` only at the top (django/test/ is a library, not tests)
    return any(part in TEST_DIRS for part in parts[:-1]) or (len(parts) > 1 and parts[0] == "test")


def _prefix_or_glob(name: str, patterns: tuple[str, ...]) -> bool:
    """pytest's rule for `python_functions` and `python_classes`: a prefix, or a glob."""
    prefixes, glob = _prefixes_and_glob(patterns)
    return name.startswith(prefixes) or (glob is not None and glob(name) is not None)


@functools.cache
def _prefixes_and_glob(
    patterns: tuple[str, ...],
) -> tuple[tuple[str, ...], Callable[[str], object] | None]:
    """The patterns as prefixes (every one is a prefix of itself), and the globs among them as
    one regular expression's `match` (None: no glob)."""
    globs = [fnmatch.translate(p) for p in patterns if any(c in p for c in "*?[")]
    return tuple(patterns), re.compile("|".join(globs)).match if globs else None


# --- globs (Jest's micromatch, Vitest's and Mocha's): `**`, `*`, `?`, `[…]`, `{a,b}` and the
# extended `?(…)`, `*(…)`, `+(…)`, `@(…)`, `!(…)`


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A repository-relative path glob as a regular expression; a pattern that does not
    start at the root may match below any folder (Jest matches absolute paths)."""
    text = pattern.strip()
    for prefix in ("<rootDir>/", "./"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    anchored = text.startswith("/")
    body = _glob_part(text.lstrip("/"))
    return re.compile(body if anchored else f"(?:.*/)?{body}")


_EXTGLOB = {"?": "?", "*": "*", "+": "+", "@": ""}


def _glob_part(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char in "?*+@!" and i + 1 < len(text) and text[i + 1] == "(":
            end = _closing(text, i + 1, "(", ")")
            inner = "|".join(_glob_part(alt) for alt in _split_top(text[i + 2 : end], "|"))
            if char == "!":
                out.append(f"(?:(?!(?:{inner}))[^/]*)")
            else:
                out.append(f"(?:{inner}){_EXTGLOB[char]}")
            i = end + 1
        elif text.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif text.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            end = text.find("]", i + 1)
            if end < 0:
                out.append(re.escape(char))
                i += 1
            else:
                body = text[i + 1 : end]
                negate = body.startswith(("!", "^"))
                body = body[1:] if negate else body
                out.append(f"[{'^' if negate else ''}{body.replace(chr(92), chr(92) * 2)}]")
                i = end + 1
        elif char == "{":
            end = _closing(text, i, "{", "}")
            if end < 0:
                out.append(re.escape(char))
                i += 1
            else:
                alternatives = _split_top(text[i + 1 : end], ",")
                out.append("(?:" + "|".join(_glob_part(a) for a in alternatives) + ")")
                i = end + 1
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def _closing(text: str, start: int, opening: str, closing: str) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _split_top(text: str, separator: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char in "({":
            depth += 1
        elif char in ")}":
            depth -= 1
        if char == separator and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


# --- reading the configuration

PYTEST_FILES_IN_ORDER = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
COMMAND_FILES = ("tox.ini", "setup.cfg", "Makefile", "noxfile.py", "pyproject.toml")
JS_CONFIG = re.compile(
    r"(?:^|/)(?:jest|vitest|vite)\.config\.(?:js|cjs|mjs|ts|cts|mts|json)$|(?:^|/)\.mocharc\."
    r"(?:js|cjs|json|jsonc|yml|yaml)$|(?:^|/)package\.json$"
)
_UNITTEST = re.compile(r"-m\s+unittest\b((?:[ \t]+[^\s;&|]+)*)")
_DJANGO_TEST = re.compile(r"(?:manage\.py|django-admin)\s+test\b((?:[ \t]+[^\s;&|]+)*)")
_JS_ARRAY = re.compile(r"\b(testMatch|include|spec)\s*:\s*(\[[^\]]*\]|'[^']*'|\"[^\"]*\")")
_JS_REGEX = re.compile(r"\btestRegex\s*:\s*(\[[^\]]*\]|'[^']*'|\"[^\"]*\")")
_STRING = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"|`([^`]*)`")


@dataclass
class _Reading:
    python_files: list[str] = field(default_factory=lambda: list(PYTEST_FILES))
    python_classes: list[str] = field(default_factory=lambda: list(PYTEST_CLASSES))
    python_functions: list[str] = field(default_factory=lambda: list(PYTEST_FUNCTIONS))
    test_dirs: list[str] = field(default_factory=list)
    js_globs: list[str] = field(default_factory=list)
    js_regexes: list[str] = field(default_factory=list)
    read_from: list[str] = field(default_factory=list)

    def add_dir(self, folder: str, library_dirs: Iterable[str]) -> None:
        """A folder the runner collects from counts as test code unless it holds the
        library (`.`, `src`, a package the repository ships: doctest runs)."""
        folder = posixpath.normpath(folder.strip().strip("/")) if folder.strip() else "."
        if folder in (".", "") or folder.startswith("../"):
            return
        if any(lib == folder or lib.startswith(f"{folder}/") for lib in library_dirs):
            return
        if folder not in self.test_dirs:
            self.test_dirs.append(folder)

    def layout(self) -> TestLayout:
        if not self.read_from:
            return DEFAULT_LAYOUT
        return TestLayout(
            tuple(dict.fromkeys(self.python_files)),
            tuple(dict.fromkeys(self.python_classes)),
            tuple(dict.fromkeys(self.python_functions)),
            tuple(self.test_dirs),
            tuple(dict.fromkeys(self.js_globs)),
            tuple(dict.fromkeys(self.js_regexes)),
            tuple(self.read_from),
        )


def read_test_layout(
    paths: Iterable[str],
    read: Callable[[str], bytes | None],
    library_dirs: Iterable[str] = (),
) -> TestLayout:
    """The test layout of the repository whose files are `paths` (read through `read`);
    `library_dirs` are the folders of the packages it ships (never test code). A setting that
    cannot be read is left out (the conventions stay)."""
    listed = set(paths)
    libraries = list(library_dirs)
    reading = _Reading()

    def text_of(path: str) -> str | None:
        data = read(path) if path in listed else None
        return data.decode("utf-8", "replace") if data is not None else None

    for name in PYTEST_FILES_IN_ORDER:
        text = text_of(name)
        if text is not None and _pytest_settings(reading, name, text, libraries):
            break
    commands = [p for p in COMMAND_FILES if p in listed]
    commands += sorted(
        p for p in listed if p.startswith(".github/workflows/") and p.endswith((".yml", ".yaml"))
    )
    for path in commands:
        text = text_of(path)
        if text is not None:
            _command_lines(reading, path, text, libraries)
    if any(p == "manage.py" or (p.count("/") == 1 and p.endswith("/manage.py")) for p in listed):
        reading.python_files.append(UNITTEST_PATTERN)
        reading.read_from.append("manage.py (Django's discovery)")
    for path in sorted(p for p in listed if JS_CONFIG.search(p) and not _vendored(p)):
        text = text_of(path)
        if text is not None:
            _js_settings(reading, path, text)
    return reading.layout()


def _vendored(path: str) -> bool:
    return any(f"/{v}" in f"/{path}" for v in VENDORED_DIRS)


def _values(value: object) -> list[str]:
    """An ini value (whitespace-separated, quoted as a shell would) or a TOML string/list."""
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, str | int | float)]
    if isinstance(value, str):
        try:
            return shlex.split(value)
        except ValueError:
            return value.split()
    return []


def _pytest_settings(reading: _Reading, path: str, text: str, libraries: list[str]) -> bool:
    """Read pytest's settings from one of its configuration files; whether it configures
    pytest (pytest reads the first that does, and only that one)."""
    settings: dict[str, object] | None
    try:
        if path == "pyproject.toml":
            tool = load_toml(text).get("tool", {})
            section = tool.get("pytest", {}) if isinstance(tool, dict) else {}
            settings = section.get("ini_options", section) if isinstance(section, dict) else None
            where = "[tool.pytest.ini_options]" if "ini_options" in section else "[tool.pytest]"
        else:
            parser = configparser.ConfigParser(interpolation=None, strict=False)
            parser.read_string(text)
            name = "tool:pytest" if path == "setup.cfg" else "pytest"
            settings = dict(parser[name]) if parser.has_section(name) else None
            where = f"[{name}]"
    except (Unreadable, ValueError, configparser.Error, AttributeError, TypeError):
        return False
    if settings is None or (path != "pytest.ini" and not settings and path != ".pytest.ini"):
        return path in ("pytest.ini", ".pytest.ini")  # an empty pytest.ini still decides
    for key, target in (
        ("python_files", reading.python_files),
        ("python_classes", reading.python_classes),
        ("python_functions", reading.python_functions),
    ):
        if key in settings:
            target[:] = _values(settings[key]) or target
    for folder in _values(settings.get("testpaths", [])):
        reading.add_dir(folder, libraries)
    reading.read_from.append(f"{path} {where}")
    return True


def _command_lines(reading: _Reading, path: str, text: str, libraries: list[str]) -> None:
    """`python -m unittest [discover] …` and `manage.py test …` command lines: their start
    folders and file patterns."""
    found = False
    for match in _UNITTEST.finditer(text):
        arguments = _split(_inside_string(text, match.start(), match.group(1)))
        if arguments and arguments[0] == "discover":
            start, pattern = _discover_arguments(arguments[1:])
        elif not arguments or arguments[0].startswith("-"):
            start, pattern = ".", UNITTEST_PATTERN  # `python -m unittest`: discovery
        else:
            continue  # named test modules: nothing to learn about the layout
        reading.python_files.append(pattern)
        reading.add_dir(start, libraries)
        found = True
    for match in _DJANGO_TEST.finditer(text):
        arguments = _split(_inside_string(text, match.start(), match.group(1)))
        pattern = _option(arguments, ("-p", "--pattern")) or UNITTEST_PATTERN
        reading.python_files.append(pattern)
        found = True
    if found:
        reading.read_from.append(f"{path} (test commands)")


def _inside_string(text: str, start: int, arguments: str) -> str:
    """A command's arguments as far as the string it is written in goes: a command in a TOML or
    YAML string (`test = 'python -m unittest discover -p "*tests.py"'`) ends at the string's
    closing quote (the first quote of its line before `start` that is not closed)."""
    line = text[text.rfind("\n", 0, start) + 1 : start]
    opening = ""
    for char in line:
        if opening and char == opening:
            opening = ""
        elif not opening and char in "'\"":
            opening = char
    return arguments.partition(opening)[0] if opening else arguments


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _option(arguments: list[str], names: tuple[str, ...]) -> str | None:
    for i, argument in enumerate(arguments):
        if argument in names and i + 1 < len(arguments):
            return arguments[i + 1]
        for name in names:
            if name.startswith("--") and argument.startswith(f"{name}="):
                return argument.partition("=")[2]
    return None


def _discover_arguments(arguments: list[str]) -> tuple[str, str]:
    """`unittest discover`'s start folder and pattern (options, or positional: start, pattern,
    top)."""
    positional: list[str] = []
    skip = False
    for i, argument in enumerate(arguments):
        if skip:
            skip = False
            continue
        if argument in (
            "-s",
            "--start-directory",
            "-p",
            "--pattern",
            "-t",
            "--top-level-directory",
            "-k",
        ):
            skip = True
            continue
        if not argument.startswith("-") and i < 3 + len(positional):
            positional.append(argument)
    start = _option(arguments, ("-s", "--start-directory")) or (
        positional[0] if positional else "."
    )
    pattern = _option(arguments, ("-p", "--pattern")) or (
        positional[1] if len(positional) > 1 else UNITTEST_PATTERN
    )
    return start, pattern


def _js_settings(reading: _Reading, path: str, text: str) -> None:
    """Jest's `testMatch`/`testRegex` (package.json's "jest", jest.config.*), Vitest's
    `include` (vitest.config.*, vite.config.*'s `test`) and Mocha's `spec`, relative to the
    folder of the file that says them."""
    folder = path.rpartition("/")[0]
    name = path.rpartition("/")[2]
    globs: list[str] = []
    regexes: list[str] = []
    if name == "package.json" or name.endswith((".json", ".jsonc")):
        try:
            data = load_json(text, lenient=True)
        except (Unreadable, ValueError):
            return
        if not isinstance(data, dict):
            return
        if name == "package.json":
            jest = data["jest"] if isinstance(data.get("jest"), dict) else {}
            mocha = data["mocha"] if isinstance(data.get("mocha"), dict) else {}
            globs += _values(jest.get("testMatch", [])) + _values(mocha.get("spec", []))
            regexes += _values_raw(jest.get("testRegex", []))
        else:
            globs += _values(data.get("testMatch", [])) + _values(data.get("spec", []))
            regexes += _values_raw(data.get("testRegex", []))
    elif name.endswith((".yml", ".yaml")):
        for line in text.splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "spec" and value.strip():
                globs += [s for s in _strings(value)] or [value.strip()]
    else:
        for key, value in _JS_ARRAY.findall(text):
            if key == "include" and not name.startswith(("vitest.", "vite.")):
                continue
            globs += _strings(value)
        for value in _JS_REGEX.findall(text):
            regexes += _strings(value)
    if not globs and not regexes:
        return
    reading.js_globs += [_under(folder, g) for g in globs if not g.startswith("!")]
    reading.js_regexes += regexes
    reading.read_from.append(path)


def _values_raw(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _strings(text: str) -> list[str]:
    """The string literals of a JavaScript expression, their escapes read."""
    found = [next(g for g in match if g) for match in _STRING.findall(text) if any(match)]
    return [re.sub(r"\\(.)", r"\1", literal) for literal in found]


def _under(folder: str, glob: str) -> str:
    glob = glob.strip()
    for prefix in ("<rootDir>/", "./"):
        if glob.startswith(prefix):
            glob = glob[len(prefix) :]
    return f"{folder}/{glob.lstrip('/')}" if folder else glob
