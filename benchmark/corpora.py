"""Real source trees for benchmarks and slow tests: PyPI sdists, downloaded once and cached.

`fetch("django", "5.1.4")` → path of the unpacked sdist (~/.cache/cartograph/corpora/Django-5.1.4).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

CACHE = Path(
    os.environ.get("CARTOGRAPH_CORPORA", Path.home() / ".cache" / "cartograph" / "corpora")
)
CORPORA = {
    "django": "5.1.4",
    "networkx": "3.4.2",
    "click": "8.1.7",
    "flask": "3.1.0",  # with werkzeug: a real pair of repositories, one built on the other
    "werkzeug": "3.1.3",
    # the runtime-recall benchmark's plugin-based tool and unittest-style project (their
    # sdists ship their test suites: pytest's testing/, Python-Markdown's tests/)
    "pytest": "8.3.3",
    "markdown": "3.7",
    "mkdocs": "1.6.1",  # the test-selection benchmark's plugin-based tool (tests in mkdocs/tests)
}
# npm packages that ship their TypeScript sources (src/*.ts) beside the built JavaScript
NPM_CORPORA = {
    "rxjs": "7.8.1",
    "@loopback/rest": "15.0.16",
    "effect": "3.10.0",
    "typeorm": "0.3.20",  # CommonJS JavaScript with .d.ts declarations beside it
}
NPM_REGISTRY = os.environ.get("CARTOGRAPH_NPM_REGISTRY", "https://registry.npmjs.org")


def fetch(name: str, version: str | None = None) -> Path:
    version = version or CORPORA[name]
    CACHE.mkdir(parents=True, exist_ok=True)
    marker = CACHE / f"{name}-{version}.path"
    if marker.exists() and Path(marker.read_text()).is_dir():
        return Path(marker.read_text())
    downloads = CACHE / "downloads"
    downloads.mkdir(exist_ok=True)
    archive = _find_archive(downloads, name, version)
    if archive is None:
        pip_download(f"{name}=={version}", downloads)
        archive = _find_archive(downloads, name, version)
    if archive is None:
        raise RuntimeError(f"pip did not download an sdist of {name}=={version}")
    with tarfile.open(archive) as tar:
        top = tar.getnames()[0].split("/")[0]
        tar.extractall(CACHE, filter="data")
    root = CACHE / top
    marker.write_text(str(root))
    return root


def pip_download(requirement: str, into: Path, wheel: bool = False) -> None:
    """One distribution, without its dependencies: its wheel through `pip download`, or its
    sdist straight from PyPI's JSON API (`pip download --no-binary` prepares the sdist's
    metadata, which for a project with compiled parts — astropy — builds numpy first)."""
    if not wheel:
        name, _, version = requirement.partition("==")
        _download_sdist(name, version, into)
        return
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
    subprocess.run([*command, "--only-binary", ":all:", requirement, "-d", str(into)], check=True)


def _download_sdist(name: str, version: str, into: Path) -> None:
    """The sdist of `name==version` from the package index's simple API (PEP 691 JSON)."""
    import json
    import urllib.request

    index = os.environ.get("CARTOGRAPH_PYPI_SIMPLE", "https://pypi.org/simple")
    request = urllib.request.Request(
        f"{index}/{name.lower()}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        files = json.load(response)["files"]
    stem = f"{name}-{version}".lower().replace("_", "-")
    sdists = [
        f
        for f in files
        if f["filename"].lower().replace("_", "-") in (f"{stem}.tar.gz", f"{stem}.zip")
    ]
    if not sdists:
        raise RuntimeError(f"the package index has no sdist of {name}=={version}")
    target = into / sdists[0]["filename"]
    with urllib.request.urlopen(sdists[0]["url"], timeout=600) as response:
        partial = target.with_suffix(".part")
        partial.write_bytes(response.read())
        partial.rename(target)


def fetch_npm(name: str, version: str | None = None) -> Path:
    """The unpacked npm tarball of a package (its `package/` folder), downloaded once."""
    import urllib.request

    version = version or NPM_CORPORA[name]
    CACHE.mkdir(parents=True, exist_ok=True)
    slug = f"npm-{name.replace('/', '-').lstrip('@')}-{version}"
    root = CACHE / slug
    if (root / "package" / "package.json").exists():
        return root / "package"
    downloads = CACHE / "downloads"
    downloads.mkdir(exist_ok=True)
    archive = downloads / f"{slug}.tgz"
    if not archive.exists():
        url = f"{NPM_REGISTRY}/{name}/-/{name.rpartition('/')[2]}-{version}.tgz"
        with urllib.request.urlopen(url, timeout=120) as response:
            partial = archive.with_suffix(".part")
            partial.write_bytes(response.read())
            partial.rename(archive)
    with tarfile.open(archive) as tar:
        tar.extractall(root, filter="data")
    return root / "package"


def _find_archive(folder: Path, name: str, version: str) -> Path | None:
    wanted = f"{name}-{version}".lower().replace("_", "-")
    for candidate in folder.iterdir():
        stem = candidate.name.lower().replace("_", "-")
        if stem.startswith(wanted) and stem.endswith((".tar.gz", ".tgz")):
            return candidate
    return None
