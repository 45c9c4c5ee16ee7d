"""Python module names from packaging settings: files are named as Python imports them."""

from __future__ import annotations

from cartograph.index import index_repository
from cartograph.model import symbol_id
from cartograph.resolve.modules import compute_module_map, declared_package_roots
from indexing_support import write_tree


def names(files: dict[str, str], python: list[str]) -> dict[str, str]:
    declared = declared_package_roots({p: t.encode() for p, t in files.items()})
    found = compute_module_map(python, set(files) | set(python), declared)
    return {path: module.name for path, module in found.by_path.items()}


def test_each_kind_of_setting_declares_its_roots():
    settings = {
        "pyproject.toml": (
            '[tool.setuptools.package-dir]\n"" = "platform"\n"acme.api" = "api/acme/api"\n'
            '[tool.setuptools.packages.find]\nwhere = ["workers", "../outside"]\n'
            '[tool.poetry]\npackages = [{include = "tools", from = "lib2"}]\n'
            '[tool.hatch.build.targets.wheel]\npackages = ["hsrc/hpkg"]\n'
        ),
        "sub/setup.cfg": "[options]\npackage_dir =\n    =src2\n"
        "[options.packages.find]\nwhere = more\n",
        "broken/pyproject.toml": "[tool.setuptools\n",  # does not parse: declares nothing
    }
    assert declared_package_roots({p: t.encode() for p, t in settings.items()}) == {
        "platform": (),
        "api/acme/api": ("acme", "api"),
        "workers": (),
        "lib2": (),
        "hsrc": (),
        "sub/src2": (),
        "sub/more": (),
    }


def test_a_namespace_package_over_two_roots_and_a_mapped_sub_package():
    files = {
        "pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["platform", "api"]\n'
        '[tool.setuptools.package-dir]\n"acme.api" = "api/acme/api"\n',
        "api/acme/api/__init__.py": "",
    }
    python = [
        "platform/acme/engine.py",
        "platform/acme/store/sqlite.py",
        "api/acme/api/__init__.py",
        "api/acme/api/routes.py",
        "tests/test_engine.py",
        "scratch/acme/engine.py",
    ]
    assert names(files, python) == {
        "platform/acme/engine.py": "acme.engine",
        "platform/acme/store/sqlite.py": "acme.store.sqlite",
        "api/acme/api/__init__.py": "acme.api",
        "api/acme/api/routes.py": "acme.api.routes",
        "tests/test_engine.py": "tests.test_engine",
        "scratch/acme/engine.py": "scratch.acme.engine",  # not declared: named by its path
    }


def test_a_changed_setting_renames_the_modules_on_the_next_run(tmp_path, stores):
    root = write_tree(
        tmp_path / "repo",
        {
            "pyproject.toml": "[project]\nname = 'acme'\n",
            "platform/acme/engine.py": "def start():\n    return 1\n",
            "tests/test_engine.py": "from acme.engine import start\n\n\n"
            "def test_start():\n    start()\n",
        },
    )
    store = stores.open()
    index_repository(store, root, name="r", workers=1)
    qualnames = {
        s.qualname
        for s in store.graph.symbols_in_files("r", ["platform/acme/engine.py"])[
            "platform/acme/engine.py"
        ]
    }
    assert qualnames == {"platform.acme.engine", "platform.acme.engine.start"}

    write_tree(root, {"pyproject.toml": '[tool.setuptools.package-dir]\n"" = "platform"\n'})
    index_repository(store, root, name="r", workers=1)
    qualnames = {
        s.qualname
        for s in store.graph.symbols_in_files("r", ["platform/acme/engine.py"])[
            "platform/acme/engine.py"
        ]
    }
    assert qualnames == {"acme.engine", "acme.engine.start"}
    test = symbol_id("r", "tests/test_engine.py", "tests.test_engine.test_start")
    callees = store.graph.edges_of([test], "out", ["CALLS"])
    assert [row.edge.dst for row in callees] == [
        symbol_id("r", "platform/acme/engine.py", "acme.engine.start")
    ]
