"""A repository's package identity, read from its manifests and lock files: what it provides
(Python distributions and their top-level packages, npm packages with their entry points, Go
modules, Maven/Gradle coordinates with their source packages, Rust crates) and what it depends
on, with the version a manifest requires and the one a lock file pins.

The readers are forgiving: a file that does not parse declares nothing, never fails an index.
"""

from __future__ import annotations

import configparser
import posixpath
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable

from cartograph.configfiles import Unreadable, load_json, load_toml
from cartograph.model import Dependency, Manifest, Provided

RESOLVING_ECOSYSTEMS = ("pypi", "npm", "go", "maven")  # whose imports bind across repositories
CHOICES_FILE = ".cartograph.toml"  # [providers] import name = "repository"
MANIFEST_NAMES = frozenset(
    {
        "pyproject.toml",
        "setup.cfg",
        "setup.py",
        "uv.lock",
        "poetry.lock",
        "pdm.lock",
        "package.json",
        "package-lock.json",
        "yarn.lock",
        "go.mod",
        "go.sum",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
        "gradle.lockfile",
        "Cargo.toml",
        "Cargo.lock",
        CHOICES_FILE,
    }
)
VENDORED = ("node_modules/", "vendor/", "site-packages/", "target/", ".venv/")
JAVA_SOURCE_ROOTS = ("src/main/java/", "src/main/kotlin/")
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")


def normalize(ecosystem: str, name: str) -> str:
    """A package name as two manifests spelling it differently still agree on (PEP 503 for
    Python; others are case-sensitive)."""
    if ecosystem == "pypi":
        return re.sub(r"[-_.]+", "-", name).lower()
    if ecosystem == "cargo":
        return name.replace("_", "-")
    return name


def is_manifest_path(path: str) -> bool:
    name = path.rpartition("/")[2]
    return (
        name in MANIFEST_NAMES or (name.startswith("requirements") and name.endswith(".txt"))
    ) and not any(part in f"/{path}" for part in (f"/{v}" for v in VENDORED))


def read_manifest(
    repo: str,
    paths: Iterable[str],
    read: Callable[[str], bytes | None],
    python_packages: Iterable[str],
    all_paths: Iterable[str] = (),
) -> Manifest:
    """The package identity of the repository whose manifests are `paths` (read through
    `read`); `python_packages` are the top-level importable names its Python files make,
    `all_paths` every path of the tree (Java source packages)."""
    manifest = Manifest(repo)
    texts: dict[str, str] = {}
    for path in sorted(p for p in paths if is_manifest_path(p)):
        data = read(path)
        if data is not None:
            texts[path] = data.decode("utf-8", "replace")
    problems: dict[str, str] = {}
    locked: dict[tuple[str, str], str] = {}
    for path, text in texts.items():
        name = path.rpartition("/")[2]
        try:
            locked.update(_LOCKS[name](text) if name in _LOCKS else {})
        except _FAILURES as exc:
            problems.setdefault(path, _reason(exc))
    python = _python(manifest, texts, sorted(set(python_packages)), problems)
    for path, text in texts.items():
        name = path.rpartition("/")[2]
        reader = _READERS.get(name)
        if name.startswith("requirements") and name.endswith(".txt"):
            reader = _requirements
        if reader is None:
            continue
        try:
            reader(manifest, path, text)
        except _FAILURES as exc:
            problems.setdefault(path, _reason(exc))
    manifest.notes[:0] = [f"{path}: {reason}, skipped" for path, reason in sorted(problems.items())]
    if python is None and python_packages:
        manifest.provides.append(Provided("pypi", "", imports=sorted(set(python_packages))))
    _java_packages(manifest, list(all_paths))
    for dependency in manifest.depends:
        pinned = locked.get(
            (dependency.ecosystem, normalize(dependency.ecosystem, dependency.name))
        )
        if pinned and not dependency.locked:
            dependency.locked = pinned
    manifest.provides.sort(key=lambda p: (p.ecosystem, p.name, p.manifest))
    manifest.depends = _unique(manifest.depends)
    return manifest


# what reading a manifest may raise: it is then skipped, with the reason in the notes
_FAILURES = (
    ValueError,  # Unreadable among them
    KeyError,
    TypeError,
    AttributeError,
    ET.ParseError,
    configparser.Error,
    RecursionError,
)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, Unreadable):
        return str(exc)
    if isinstance(exc, RecursionError):
        return "nested too deeply to read"
    if isinstance(exc, ET.ParseError):
        return f"not valid XML ({exc})"
    if isinstance(exc, configparser.Error):
        return f"not a valid setup.cfg ({exc.message})"
    return f"not the shape a manifest has ({type(exc).__name__}: {exc})"


def _unique(depends: list[Dependency]) -> list[Dependency]:
    seen: dict[tuple[str, str, str], Dependency] = {}
    for d in depends:
        seen.setdefault((d.ecosystem, normalize(d.ecosystem, d.name), d.manifest), d)
    return sorted(seen.values(), key=lambda d: (d.ecosystem, d.name.lower(), d.manifest))


# ------------------------------------------------------------------------------- Python


def _python(
    manifest: Manifest, texts: dict[str, str], packages: list[str], problems: dict[str, str]
) -> Provided | None:
    """The repository's Python distribution: the shallowest project that names one (its
    top-level packages are the repository's)."""
    for path in sorted(texts, key=lambda p: (p.count("/"), p)):
        file = path.rpartition("/")[2]
        name, version = "", ""
        text = texts[path]
        try:
            if file == "pyproject.toml":
                config = load_toml(text)
                project = config.get("project") or {}
                poetry = (config.get("tool") or {}).get("poetry") or {}
                name = project.get("name") or poetry.get("name") or ""
                version = project.get("version") or poetry.get("version") or ""
            elif file == "setup.cfg":
                parser = configparser.ConfigParser(interpolation=None)
                parser.read_string(text)
                if parser.has_section("metadata"):
                    name = parser.get("metadata", "name", fallback="")
                    version = parser.get("metadata", "version", fallback="")
            elif file == "setup.py":
                found = re.search(r"""\bname\s*=\s*["']([A-Za-z0-9._-]+)["']""", text)
                name = found.group(1) if found else ""
                found = re.search(r"""\bversion\s*=\s*["']([^"']+)["']""", text)
                version = found.group(1) if found else ""
        except _FAILURES as exc:
            problems.setdefault(path, _reason(exc))
            continue
        if isinstance(name, str) and name:
            provided = Provided(
                "pypi",
                normalize("pypi", name),
                version if isinstance(version, str) else "",
                path,
                packages,
                posixpath.dirname(path),
            )
            manifest.provides.append(provided)
            return provided
    return None


def _requirement(text: str, manifest: str, scope: str = "") -> Dependency | None:
    text = text.split(";")[0].split("#")[0].strip()
    if not text or text.startswith(("-", "git+", "http:", "https:", "file:", ".")):
        return None
    found = _REQUIREMENT.match(text)
    if found is None:
        return None
    spec = found.group(3).strip().strip("()").replace(" ", "")
    pinned = spec[2:] if spec.startswith("==") and "," not in spec and "*" not in spec else ""
    return Dependency("pypi", normalize("pypi", found.group(1)), spec, pinned, manifest, scope)


def _add(manifest: Manifest, dependency: Dependency | None) -> None:
    if dependency is not None:
        manifest.depends.append(dependency)


def _pyproject(manifest: Manifest, path: str, text: str) -> None:
    config = load_toml(text)
    project = config.get("project") or {}
    poetry_tool = (config.get("tool") or {}).get("poetry") or {}
    points = [
        ("console_scripts", project.get("scripts")),
        ("gui_scripts", project.get("gui-scripts")),
        *(project.get("entry-points") or {}).items(),
        ("console_scripts", poetry_tool.get("scripts")),
        *(poetry_tool.get("plugins") or {}).items(),
    ]
    for group, table in points:
        if isinstance(table, dict):
            _entry_points(manifest, group, [str(v) for v in table.values() if isinstance(v, str)])
    for item in project.get("dependencies") or []:
        _add(manifest, _requirement(item, path))
    for items in (project.get("optional-dependencies") or {}).values():
        for item in items:
            _add(manifest, _requirement(item, path, "optional"))
    for items in (config.get("dependency-groups") or {}).values():
        for item in items:
            if isinstance(item, str):
                _add(manifest, _requirement(item, path, "dev"))
    poetry = (config.get("tool") or {}).get("poetry") or {}
    groups = [("", poetry.get("dependencies") or {}), ("dev", poetry.get("dev-dependencies") or {})]
    for group in (poetry.get("group") or {}).values():
        groups.append(("dev", group.get("dependencies") or {}))
    for scope, table in groups:
        for name, spec in table.items():
            if name.lower() == "python":
                continue
            version = spec if isinstance(spec, str) else (spec.get("version") or "")
            _add(manifest, Dependency("pypi", normalize("pypi", name), version, "", path, scope))


def _setup_cfg(manifest: Manifest, path: str, text: str) -> None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    if parser.has_section("options.entry_points"):
        for group, lines in parser.items("options.entry_points"):
            targets = [line.partition("=")[2] for line in lines.splitlines() if "=" in line]
            _entry_points(manifest, group, targets)
    for line in parser.get("options", "install_requires", fallback="").splitlines():
        _add(manifest, _requirement(line, path))
    if parser.has_section("options.extras_require"):
        for _extra, lines in parser.items("options.extras_require"):
            for line in lines.splitlines():
                _add(manifest, _requirement(line, path, "optional"))


def _entry_points(manifest: Manifest, group: str, targets: list[str]) -> None:
    """Entry points of a group (`name = "module:attribute [extra]"`), as "module:attribute"."""
    kept = manifest.entry_points.setdefault(group, [])
    for target in targets:
        module, _, attribute = target.strip().partition(":")
        cleaned = (
            f"{module.strip()}:{attribute.split('[')[0].strip()}" if attribute else module.strip()
        )
        if cleaned and cleaned not in kept:
            kept.append(cleaned)
    if not kept:
        del manifest.entry_points[group]


def _setup_py(manifest: Manifest, path: str, text: str) -> None:
    found = re.search(r"install_requires\s*=\s*\[([^\]]*)\]", text, re.S)
    for item in re.findall(r"""["']([^"']+)["']""", found.group(1) if found else ""):
        _add(manifest, _requirement(item, path))


def _requirements(manifest: Manifest, path: str, text: str) -> None:
    file = path.rpartition("/")[2]
    scope = "dev" if any(w in file for w in ("dev", "test", "lint", "doc")) else ""
    for line in text.splitlines():
        _add(manifest, _requirement(line, path, scope))


def _toml_lock(ecosystem: str) -> Callable[[str], dict[tuple[str, str], str]]:
    def read(text: str) -> dict[tuple[str, str], str]:
        return {
            (ecosystem, normalize(ecosystem, p["name"])): str(p.get("version", ""))
            for p in load_toml(text).get("package") or []
            if isinstance(p, dict) and p.get("name")
        }

    return read


# ------------------------------------------------------------------------------- npm


def _package_json(manifest: Manifest, path: str, text: str) -> None:
    data = load_json(text)
    if not isinstance(data, dict):
        return
    name = data.get("name")
    if isinstance(name, str) and name:
        entry = {k: data[k] for k in ("exports", "main", "module", "types", "typings") if k in data}
        version = data["version"] if isinstance(data.get("version"), str) else ""
        manifest.provides.append(
            Provided("npm", name, version, path, [name], posixpath.dirname(path), entry)
        )
    for field, scope in (
        ("dependencies", ""),
        ("devDependencies", "dev"),
        ("peerDependencies", "peer"),
        ("optionalDependencies", "optional"),
    ):
        table = data.get(field)
        if isinstance(table, dict):
            for dep, spec in table.items():
                manifest.depends.append(
                    Dependency("npm", dep, spec if isinstance(spec, str) else "", "", path, scope)
                )


def _package_lock(text: str) -> dict[tuple[str, str], str]:
    data = load_json(text)
    found: dict[tuple[str, str], str] = {}
    for key, value in (data.get("packages") or {}).items():
        if key.startswith("node_modules/") and isinstance(value, dict) and "version" in value:
            name = key.rpartition("node_modules/")[2]
            found.setdefault(("npm", name), str(value["version"]))
    for name, value in (data.get("dependencies") or {}).items():  # lockfileVersion 1
        if isinstance(value, dict) and "version" in value:
            found.setdefault(("npm", name), str(value["version"]))
    return found


def _yarn_lock(text: str) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    current: list[str] = []
    for line in text.splitlines():
        if line and not line.startswith((" ", "#")):
            current = []
            for spec in line.rstrip(":").split(","):
                spec = spec.strip().strip('"')
                at = spec.rfind("@")
                if at > 0:
                    current.append(spec[:at])
        elif line.strip().startswith("version") and current:
            version = line.strip()[len("version") :].strip().strip(":").strip().strip('"')
            for name in current:
                found.setdefault(("npm", name), version)
            current = []
    return found


# ------------------------------------------------------------------------------- Go


def _go_mod(manifest: Manifest, path: str, text: str) -> None:
    in_block = False
    for raw in text.splitlines():
        line = raw.split("//")[0].strip()
        if line.startswith("module "):
            module = line[7:].strip().strip('"')
            manifest.provides.append(
                Provided("go", module, "", path, [module], posixpath.dirname(path))
            )
        elif line.startswith("require ("):
            in_block = True
        elif in_block and line == ")":
            in_block = False
        elif in_block or line.startswith("require "):
            parts = (line[8:] if line.startswith("require ") else line).split()
            if len(parts) >= 2:
                scope = "indirect" if "// indirect" in raw else ""
                manifest.depends.append(Dependency("go", parts[0], parts[1], parts[1], path, scope))


def _go_sum(text: str) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and not parts[1].endswith("/go.mod"):
            found[("go", parts[0])] = parts[1]
    return found


# ------------------------------------------------------------------------------- JVM


def _pom(manifest: Manifest, path: str, text: str) -> None:
    root = ET.fromstring(text)
    ns = root.tag[: root.tag.index("}") + 1] if root.tag.startswith("{") else ""

    def child(node: ET.Element | None, tag: str) -> str:
        found = node.find(ns + tag) if node is not None else None
        return (found.text or "").strip() if found is not None else ""

    parent = root.find(ns + "parent")
    group = child(root, "groupId") or child(parent, "groupId")
    artifact = child(root, "artifactId")
    version = child(root, "version") or child(parent, "version")
    if artifact:
        manifest.provides.append(
            Provided("maven", f"{group}:{artifact}", version, path, [], posixpath.dirname(path))
        )
    dependencies = root.find(ns + "dependencies")
    for dep in dependencies.findall(ns + "dependency") if dependencies is not None else []:
        name = f"{child(dep, 'groupId')}:{child(dep, 'artifactId')}"
        scope = child(dep, "scope")
        version = child(dep, "version")
        manifest.depends.append(
            Dependency("maven", name, version, "" if "$" in version else version, path, scope)
        )


_GRADLE_DEP = re.compile(
    r"""\b(implementation|api|compileOnly|runtimeOnly|testImplementation|kapt)\s*\(?\s*["']([^"':]+):([^"':]+):([^"']+)["']"""
)


def _gradle(manifest: Manifest, path: str, text: str) -> None:
    folder = posixpath.dirname(path)
    group = re.search(r"""^\s*group\s*=\s*["']([^"']+)["']""", text, re.M)
    version = re.search(r"""^\s*version\s*=\s*["']([^"']+)["']""", text, re.M)
    artifact = posixpath.basename(folder) if folder else ""
    if group:
        manifest.provides.append(
            Provided(
                "maven",
                f"{group.group(1)}:{artifact or manifest.repo}",
                version.group(1) if version else "",
                path,
                [],
                folder,
            )
        )
    for configuration, g, a, v in _GRADLE_DEP.findall(text):
        scope = "test" if configuration.startswith("test") else ""
        manifest.depends.append(Dependency("maven", f"{g}:{a}", v, "", path, scope))


def _gradle_lock(text: str) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for line in text.splitlines():
        coordinates = line.split("=")[0].strip()
        parts = coordinates.split(":")
        if len(parts) == 3 and not line.startswith("#"):
            found[("maven", f"{parts[0]}:{parts[1]}")] = parts[2]
    return found


def _java_packages(manifest: Manifest, paths: list[str]) -> None:
    """A Maven/Gradle project's source packages: the folders under src/main/java (or kotlin)
    below its own folder that hold source files, cut to the shortest prefixes."""
    for provided in manifest.provides:
        if provided.ecosystem != "maven":
            continue
        prefix = f"{provided.folder}/" if provided.folder else ""
        packages: set[str] = set()
        for path in paths:
            if not path.startswith(prefix) or not path.endswith((".java", ".kt")):
                continue
            rest = path[len(prefix) :]
            for root in JAVA_SOURCE_ROOTS:
                if rest.startswith(root):
                    folder = posixpath.dirname(rest[len(root) :])
                    if folder:
                        packages.add(folder.replace("/", "."))
        provided.imports = sorted(
            p for p in packages if not any(p.startswith(q + ".") for q in packages)
        )


# ------------------------------------------------------------------------------- Rust


def _cargo(manifest: Manifest, path: str, text: str) -> None:
    config = load_toml(text)
    package = config.get("package") or {}
    if package.get("name"):
        name = package["name"]
        version = package.get("version")
        manifest.provides.append(
            Provided(
                "cargo",
                normalize("cargo", name),
                version if isinstance(version, str) else "",
                path,
                [((config.get("lib") or {}).get("name") or name).replace("-", "_")],
                posixpath.dirname(path),
            )
        )
    for field, scope in (
        ("dependencies", ""),
        ("dev-dependencies", "dev"),
        ("build-dependencies", "build"),
    ):
        for name, spec in (config.get(field) or {}).items():
            version = spec if isinstance(spec, str) else (spec.get("version") or "")
            manifest.depends.append(
                Dependency("cargo", normalize("cargo", name), version, "", path, scope)
            )


# ------------------------------------------------------------------------------- choices


def _choices(manifest: Manifest, path: str, text: str) -> None:
    """`[providers]` import name = "repository", `[services]` base URL = "repository"; what
    cannot be followed is said in the manifest's notes."""
    if "/" in path:
        return  # only the repository's own, at its root
    settings = load_toml(text)
    for table in sorted(set(settings) - {"providers", "services"}):
        manifest.notes.append(
            f"{path}: [{table}] is no table Cartograph reads ([providers], [services]), ignored"
        )
    targets = (("providers", manifest.choices), ("services", manifest.services))
    for table, chosen in targets:
        entries = settings.get(table, {})
        if not isinstance(entries, dict):
            manifest.notes.append(f"{path}: {table} is not a table, ignored")
            continue
        # [providers]: import name → repository; [services]: a base URL (a host, a variable
        # or setting, `env:NAME`) → the repository serving it
        for name, repo in entries.items():
            if isinstance(repo, str) and repo.strip():
                chosen[name] = repo.strip()
            else:
                manifest.notes.append(
                    f"{path}: [{table}] {name} = {repo!r} names no repository, ignored"
                )


def choice_notes(manifest: Manifest, manifests: dict[str, Manifest]) -> list[str]:
    """What the repository's `[providers]` choices name that cannot be bound: a repository no
    index holds, or one that does not provide that import name (nothing is then bound to
    it). `manifests`: every repository's, as stored."""
    notes = []
    for name, repo in sorted(manifest.choices.items()):
        other = manifests.get(repo)
        if other is None:
            reason = f"no repository named {repo} is indexed"
        elif repo == manifest.repo:
            reason = "that is this repository"
        elif name not in other.import_names():
            reason = f"{repo} does not provide {name}"
        else:
            continue
        notes.append(
            f"{CHOICES_FILE}: [providers] {name} = {repo!r}: {reason}; nothing is bound to "
            f"{name} from it"
        )
    return notes


_READERS: dict[str, Callable[[Manifest, str, str], None]] = {
    "pyproject.toml": _pyproject,
    "setup.cfg": _setup_cfg,
    "setup.py": _setup_py,
    "package.json": _package_json,
    "go.mod": _go_mod,
    "pom.xml": _pom,
    "build.gradle": _gradle,
    "build.gradle.kts": _gradle,
    "Cargo.toml": _cargo,
    CHOICES_FILE: _choices,
}
_LOCKS: dict[str, Callable[[str], dict[tuple[str, str], str]]] = {
    "uv.lock": _toml_lock("pypi"),
    "poetry.lock": _toml_lock("pypi"),
    "pdm.lock": _toml_lock("pypi"),
    "package-lock.json": _package_lock,
    "yarn.lock": _yarn_lock,
    "go.sum": _go_sum,
    "gradle.lockfile": _gradle_lock,
    "Cargo.lock": _toml_lock("cargo"),
}


# ------------------------------------------------------------------------------- versions


def depends_on(dependency: Dependency, provided: Provided) -> bool:
    """Whether a dependency names what a repository provides."""
    return dependency.ecosystem == provided.ecosystem and normalize(
        dependency.ecosystem, dependency.name
    ) == normalize(provided.ecosystem, provided.name)


def declared(manifest: Manifest, provided: Provided) -> Dependency | None:
    """How a repository declares what another provides: the runtime dependency of its
    shallowest manifest first (an example's requirements file is not the project's)."""
    found = [d for d in manifest.depends if depends_on(d, provided)]
    if not found:
        return None
    return min(found, key=lambda d: (d.scope != "", d.manifest.count("/"), d.manifest))


def version_mismatch(dependency: Dependency, provided: Provided) -> str:
    """Why the version a consumer pins or requires is not the provider's ("" when it is, or
    when either side does not say): the index binds to the provider's code as indexed."""
    version = provided.version
    if not version:
        return ""
    if dependency.locked and dependency.locked.lstrip("v=") != version.lstrip("v"):
        return f"pins {dependency.locked}, the provider is at {version}"
    required = dependency.required
    if not required or dependency.locked:
        return ""
    if dependency.ecosystem == "pypi":
        try:
            from packaging.specifiers import InvalidSpecifier, SpecifierSet
            from packaging.version import InvalidVersion, Version

            if Version(version) not in SpecifierSet(required, prereleases=True):
                return f"requires {required}, the provider is at {version}"
        except (InvalidSpecifier, InvalidVersion):
            return ""
        return ""
    if dependency.ecosystem == "npm" and not _npm_satisfies(required, version):
        return f"requires {required}, the provider is at {version}"
    if dependency.ecosystem in ("go", "cargo", "maven") and required.lstrip(
        "v=^"
    ) != version.lstrip("v"):
        if dependency.ecosystem == "cargo" and _caret_satisfies(required.lstrip("^="), version):
            return ""
        return f"requires {required}, the provider is at {version}"
    return ""


def _numbers(version: str) -> list[int] | None:
    parts = version.strip().lstrip("v=").split("-")[0].split(".")
    try:
        return [int(p) for p in parts]
    except ValueError:
        return None


def _three(numbers: list[int]) -> list[int]:
    return [*numbers, 0, 0, 0][:3]


def _caret_satisfies(base: str, version: str) -> bool:
    low, have = _numbers(base), _numbers(version)
    if low is None or have is None:
        return True  # not a plain version: not judged
    low, have = _three(low), _three(have)
    if have < low:
        return False
    first = next((i for i, n in enumerate(low) if n), 2)  # ^0.2.3 keeps 0.2
    return have[: first + 1] == low[: first + 1]


def _npm_satisfies(required: str, version: str) -> bool:
    """npm ranges the common way they are written: exact, ^, ~, >=, * and `a || b`; anything
    else (workspace:, file:, tags) is not judged."""
    for alternative in required.split("||"):
        spec = alternative.strip()
        if spec in ("", "*", "latest") or ":" in spec:
            return True
        have = _numbers(version)
        if spec.startswith("^"):
            if _caret_satisfies(spec[1:], version):
                return True
        elif spec.startswith("~"):
            low = _numbers(spec[1:])
            if low is None or have is None:
                return True
            low3, have3 = _three(low), _three(have)
            if have3 >= low3 and have3[:2] == low3[:2]:
                return True
        elif spec.startswith(">="):
            low = _numbers(spec[2:])
            if low is None or have is None or have >= low:
                return True
        else:
            exact = _numbers(spec)
            if exact is None or (have is not None and exact == have):
                return True
    return False


# ------------------------------------------------------------------------------- across


def offers(
    manifests: dict[str, Manifest], repo: str, current: set[str] | None = None
) -> dict[tuple[str, str], list[tuple[str, Provided]]]:
    """(ecosystem, import name) → the other repositories (among `current`, when given)
    providing it, with what they provide."""
    found: dict[tuple[str, str], list[tuple[str, Provided]]] = {}
    for name, other in sorted(manifests.items()):
        if name == repo or (current is not None and name not in current):
            continue
        for provided in other.provides:
            if provided.ecosystem in RESOLVING_ECOSYSTEMS:
                for imported in provided.imports:
                    found.setdefault((provided.ecosystem, imported), []).append((name, provided))
    return found


def provider_for(
    manifest: Manifest, offered: list[tuple[str, Provided]], name: str
) -> tuple[str, Provided] | None:
    """Which of the repositories offering an import name a consumer binds to: the one its
    `.cartograph.toml` chooses; else the only one; else the only one whose package its
    manifests depend on (a fork published under another name is not it). None: an ambiguity
    (or a choice that does not provide it) — never guessed."""
    chosen = manifest.choices.get(name)
    if chosen is not None:
        return next((o for o in offered if o[0] == chosen), None)
    if len({repo for repo, _ in offered}) == 1:
        return offered[0]
    declared_by = [o for o in offered if any(depends_on(d, o[1]) for d in manifest.depends)]
    if len({repo for repo, _ in declared_by}) == 1:
        return declared_by[0]
    return None


def unbound(manifest: Manifest, offered: list[tuple[str, Provided]], name: str) -> list[str]:
    """The repositories offering an import name when nothing is bound to it (see
    provider_for); [] when it binds."""
    if not offered or provider_for(manifest, offered, name) is not None:
        return []
    return sorted({r for r, _ in offered})
