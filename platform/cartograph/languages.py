"""The language registry: every language Cartograph indexes, and all that is decided by it.

A `Language` names its file extensions, its tree-sitter grammar (a PyPI wheel), the query
files its parser runs, its family — which parser and resolver handle it:

- "python": `parsing/python.py` and `resolve/python.py` (full resolution);
- "ecma": TypeScript, TSX and JavaScript, `parsing/ecma.py` and `resolve/ecma.py`;
- "generic": the by-name tier, `parsing/tags.py` and `resolve/generic.py`, with the
  language's own rules module (`resolve/<rules>.py`); languages that share a rules module
  (Java and Kotlin, C and C++) share packages too;
- "styles": CSS, SCSS and Less, `parsing/styles.py` and `resolve/styles.py` (a design
  system's custom properties and variables; a lexer, no grammar);
- "openapi": OpenAPI and Swagger documents, `parsing/openapi.py` and `resolve/openapi.py`
  (the HTTP operations a service publishes; known by their file names, not an extension) —

and the configuration files that steer how its imports resolve (a change to one re-resolves
every file of the family). Nothing else dispatches on a language's name: add a language
here (see docs/architecture.md, "How to add a language").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import import_module, resources

import tree_sitter


@dataclass(frozen=True, slots=True)
class Family:
    """A family of languages: one parser and one resolver, each named by its module (imported
    when first used), and what the rest of Cartograph needs to know of the family — the one
    place a family is told apart from another (`family_of`)."""

    name: str
    # the parser: extract(language, source), FACTS_VERSION, interface_of(facts)
    parser: str
    # the resolver, "module:Class", a `cartograph.resolve.family.FamilyResolver`
    resolver: str
    # files are modules named by the language's own rules (Python's dotted names): their
    # dependencies are module names (narrowed by top-level name), what they import is read
    # ahead, and a file's own facts give its symbols (no other file is read for them)
    dotted_modules: bool = False
    # a file's names depend on which files its folder holds (the by-name tier's packages)
    folder_scoped: bool = False
    # a dependency every file of the family has on every other one of its repository (a
    # stylesheet's custom properties are global): a change to one re-resolves them all
    global_dependency: str = ""
    # files that are not indexed (tsconfig.json, package.json) steer how its imports resolve
    reads_other_paths: bool = False
    # how a class finds an inherited member: "c3" (Python's linearization) or "depth_first"
    lookup_order: str = "c3"
    # its symbols are design tokens (custom properties, SCSS and Less variables)
    design_tokens: bool = False
    # the test runners its projects use, by the package name a manifest depends on (the
    # first one declared is the runner); `default_runner` otherwise
    test_runners: tuple[str, ...] = ()
    default_runner: str = "files"


FAMILY_LIST = (
    Family(
        "python",
        "cartograph.parsing.python",
        "cartograph.resolve.python:PythonFamily",
        dotted_modules=True,
        default_runner="pytest",
    ),
    Family(
        "ecma",
        "cartograph.parsing.ecma",
        "cartograph.resolve.ecma:EcmaProgram",
        reads_other_paths=True,
        lookup_order="depth_first",
        test_runners=("vitest", "jest", "mocha", "ava"),
        default_runner="jest",
    ),
    Family(
        "generic",
        "cartograph.parsing.tags",
        "cartograph.resolve.generic:GenericProgram",
        folder_scoped=True,
    ),
    Family(
        "styles",
        "cartograph.parsing.styles",
        "cartograph.resolve.styles:StylesProgram",
        global_dependency="~styles",
        design_tokens=True,
    ),
    Family("openapi", "cartograph.parsing.openapi", "cartograph.resolve.openapi:OpenApiProgram"),
)
FAMILY: dict[str, Family] = {f.name: f for f in FAMILY_LIST}
FAMILIES = tuple(FAMILY)
ECMA_CONFIG = ("tsconfig.json", "jsconfig.json", "package.json")
# a stylesheet's custom properties may come from the packages its repository depends on
STYLES_CONFIG = ("package.json", "pyproject.toml")


@dataclass(frozen=True, slots=True)
class Language:
    name: str
    extensions: tuple[str, ...]
    family: str  # one of FAMILIES
    grammar: tuple[str, str]  # the grammar wheel's module and its function ("", "": no grammar)
    queries: tuple[str, ...]  # files under cartograph/parsing/queries, run as one query
    rules: str = ""  # the by-name tier: the rules module, cartograph.resolve.<rules>
    config_files: tuple[str, ...] = ()  # file names that steer how its imports resolve
    test_runner: str = ""  # the runner of its tests, when not its family's (impact.tests)


def _generic(
    name: str,
    extensions: tuple[str, ...],
    grammar: tuple[str, str],
    rules: str,
    config=(),
    runner: str = "",
):
    return Language(
        name, extensions, "generic", grammar, (f"tags/{name}.scm",), rules, config, runner
    )


LANGUAGES: tuple[Language, ...] = (
    Language(
        "python", (".py", ".pyi"), "python", ("tree_sitter_python", "language"), ("python.scm",)
    ),
    Language(
        "typescript",
        (".ts", ".mts", ".cts"),
        "ecma",
        ("tree_sitter_typescript", "language_typescript"),
        ("ecma.scm", "ecma-typescript.scm"),
        config_files=ECMA_CONFIG,
    ),
    Language(
        "tsx",
        (".tsx",),
        "ecma",
        ("tree_sitter_typescript", "language_tsx"),
        ("ecma.scm", "ecma-typescript.scm", "ecma-jsx.scm"),
        config_files=ECMA_CONFIG,
    ),
    Language(
        "javascript",
        (".js", ".jsx", ".mjs", ".cjs"),
        "ecma",
        ("tree_sitter_javascript", "language"),
        ("ecma.scm", "ecma-javascript.scm", "ecma-jsx.scm"),
        config_files=ECMA_CONFIG,
    ),
    _generic("go", (".go",), ("tree_sitter_go", "language"), "go", ("go.mod",), "go"),
    _generic("java", (".java",), ("tree_sitter_java", "language"), "jvm", runner="maven"),
    _generic("kotlin", (".kt", ".kts"), ("tree_sitter_kotlin", "language"), "jvm", runner="maven"),
    _generic("csharp", (".cs",), ("tree_sitter_c_sharp", "language"), "csharp"),
    _generic("rust", (".rs",), ("tree_sitter_rust", "language"), "rust"),
    _generic("ruby", (".rb", ".rake"), ("tree_sitter_ruby", "language"), "ruby"),
    _generic("php", (".php",), ("tree_sitter_php", "language_php"), "php"),
    _generic("c", (".c", ".h"), ("tree_sitter_c", "language"), "cfamily"),
    _generic(
        "cpp",
        (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp"),
        ("tree_sitter_cpp", "language"),
        "cfamily",
    ),
    Language("css", (".css",), "styles", ("", ""), (), config_files=STYLES_CONFIG),
    Language("scss", (".scss",), "styles", ("", ""), (), config_files=STYLES_CONFIG),
    Language("less", (".less",), "styles", ("", ""), (), config_files=STYLES_CONFIG),
    Language("openapi", (), "openapi", ("", ""), ()),
)
# OpenAPI documents, by file name: `openapi.yaml`, `swagger.json`, `users.openapi.yml`, ...
DOCUMENT_STEMS = ("openapi", "swagger")
DOCUMENT_EXTENSIONS = (".yaml", ".yml", ".json")
BY_NAME: dict[str, Language] = {language.name: language for language in LANGUAGES}
# file extension → language name
EXTENSIONS: dict[str, str] = {
    extension: language.name for language in LANGUAGES for extension in language.extensions
}


def language_of(path: str) -> str | None:
    """The language of a file, from its extension (None: not indexed)."""
    dot = path.rfind(".")
    if dot <= path.rfind("/"):
        return None
    found = EXTENSIONS.get(path[dot:])
    if found is None and path[dot:] in DOCUMENT_EXTENSIONS:
        stem = path[path.rfind("/") + 1 : dot].lower()
        if stem.rpartition(".")[2] in DOCUMENT_STEMS:
            return "openapi"
    return found


def family(name: str) -> str:
    """The name of the family whose parser and resolver a language uses ("generic" for a
    name not registered)."""
    language = BY_NAME.get(name)
    return language.family if language is not None else "generic"


def family_of(path: str) -> Family | None:
    """The family of a file, by its language (None: not indexed)."""
    language = language_of(path)
    return FAMILY[family(language)] if language is not None else None


def names(family_name: str) -> tuple[str, ...]:
    """The languages of a family, in registry order."""
    return tuple(language.name for language in LANGUAGES if language.family == family_name)


def config_files(family_name: str) -> tuple[str, ...]:
    """The configuration file names that steer the imports of a family's languages."""
    found: dict[str, None] = {}
    for language in LANGUAGES:
        if language.family == family_name:
            found.update(dict.fromkeys(language.config_files))
    return tuple(found)


@cache
def grammar(name: str) -> tree_sitter.Language:
    """A language's tree-sitter grammar, loaded from its wheel once per process."""
    module, function = BY_NAME[name].grammar
    return tree_sitter.Language(getattr(import_module(module), function)())


@cache
def query_text(name: str) -> str:
    """The text of a language's query files, one after the other."""
    folder = resources.files("cartograph.parsing").joinpath("queries")
    return "".join(folder.joinpath(part).read_text() for part in BY_NAME[name].queries)


def rules_module(name: str) -> str:
    """The module of a by-name tier language's rules ("" for the other families)."""
    language = BY_NAME.get(name)
    return f"cartograph.resolve.{language.rules}" if language and language.rules else ""
