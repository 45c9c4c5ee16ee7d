"""Package identity read from manifests and lock files, one ecosystem at a time: what a
repository provides (name, version, import names, entry points) and what it depends on, with
the version required and the one pinned; and how a pin is judged against a provider."""

from __future__ import annotations

from cartograph.manifests import declared, read_manifest, version_mismatch
from cartograph.model import Dependency, Manifest, Provided


def _read(files: dict[str, str], python: list[str] | None = None) -> Manifest:
    data = {path: text.encode() for path, text in files.items()}
    return read_manifest("repo", data, data.get, python or [], data)


def _deps(manifest: Manifest) -> set[tuple[str, str, str, str, str]]:
    return {(d.ecosystem, d.name, d.required, d.locked, d.scope) for d in manifest.depends}


def test_python_project_with_lock_and_requirements():
    manifest = _read(
        {
            "pyproject.toml": (
                '[project]\nname = "Shop_Core"\nversion = "2.0.1"\n'
                'dependencies = ["Flask[async]>=3.0", "attrs==23.2.0; python_version>\'3.8\'"]\n'
                '[project.optional-dependencies]\nfast = ["orjson"]\n'
                '[dependency-groups]\ndev = ["pytest>=8"]\n'
            ),
            "uv.lock": '[[package]]\nname = "flask"\nversion = "3.1.0"\n',
            "requirements-dev.txt": "ruff==0.6.0\n-e .\n# a comment\n",
            "node_modules/x/package.json": '{"name": "ignored"}',
        },
        python=["shop_core"],
    )
    assert manifest.provides == [
        Provided("pypi", "shop-core", "2.0.1", "pyproject.toml", ["shop_core"], "")
    ]
    assert _deps(manifest) == {
        ("pypi", "flask", ">=3.0", "3.1.0", ""),
        ("pypi", "attrs", "==23.2.0", "23.2.0", ""),
        ("pypi", "orjson", "", "", "optional"),
        ("pypi", "pytest", ">=8", "", "dev"),
        ("pypi", "ruff", "==0.6.0", "0.6.0", "dev"),
    }


def test_entry_points_by_group_from_pyproject_setup_cfg_and_poetry():
    manifest = _read(
        {
            "pyproject.toml": (
                '[project]\nname = "docs-tool"\n'
                '[project.scripts]\ndocs = "docs_tool.__main__:cli"\n'
                '[project.entry-points."docs_tool.plugins"]\n'
                'search = "docs_tool.contrib.search:SearchPlugin [i18n]"\n'
                '[project.entry-points."docs_tool.themes"]\nplain = "docs_tool.themes.plain"\n'
                '[tool.poetry.plugins."docs_tool.plugins"]\nlinks = "docs_tool.links:Links"\n'
            ),
            "setup.cfg": (
                "[options.entry_points]\nconsole_scripts =\n    docs-serve = docs_tool.serve:main\n"
                "docs_tool.plugins =\n    search = docs_tool.contrib.search:SearchPlugin\n"
            ),
        }
    )
    assert manifest.entry_points == {
        "console_scripts": ["docs_tool.__main__:cli", "docs_tool.serve:main"],
        "docs_tool.plugins": ["docs_tool.contrib.search:SearchPlugin", "docs_tool.links:Links"],
        "docs_tool.themes": ["docs_tool.themes.plain"],
    }
    assert manifest.entry_point_targets(scripts=False) == [
        ("docs_tool.contrib.search", "SearchPlugin"),
        ("docs_tool.links", "Links"),
        ("docs_tool.themes.plain", ""),
    ]
    assert Manifest.from_json(manifest.to_json()).entry_points == manifest.entry_points


def test_setup_cfg_and_setup_py_and_poetry():
    cfg = _read(
        {
            "setup.cfg": (
                "[metadata]\nname = legacy\nversion = 0.9\n"
                "[options]\ninstall_requires =\n    requests>=2\n    six\n"
            )
        },
        python=["legacy"],
    )
    assert [(p.name, p.version) for p in cfg.provides] == [("legacy", "0.9")]
    assert _deps(cfg) == {("pypi", "requests", ">=2", "", ""), ("pypi", "six", "", "", "")}
    setup_py = _read(
        {"setup.py": 'setup(name="old-pkg", version="1.0", install_requires=["click>=7"])'}
    )
    assert [(p.name, p.version) for p in setup_py.provides] == [("old-pkg", "1.0")]
    assert _deps(setup_py) == {("pypi", "click", ">=7", "", "")}
    poetry = _read(
        {
            "pyproject.toml": (
                '[tool.poetry]\nname = "poet"\nversion = "0.1.0"\n'
                '[tool.poetry.dependencies]\npython = "^3.11"\nhttpx = {version = "^0.27"}\n'
                '[tool.poetry.group.test.dependencies]\npytest = "^8"\n'
            ),
            "poetry.lock": '[[package]]\nname = "httpx"\nversion = "0.27.2"\n',
        }
    )
    assert _deps(poetry) == {
        ("pypi", "httpx", "^0.27", "0.27.2", ""),
        ("pypi", "pytest", "^8", "", "dev"),
    }


def test_npm_workspace_packages_with_lock_files():
    manifest = _read(
        {
            "package.json": '{"private": true, "workspaces": ["packages/*"], '
            '"devDependencies": {"typescript": "^5.4.0"}}',
            "packages/ui/package.json": (
                '{"name": "@acme/ui", "version": "1.2.0", "main": "dist/index.js", '
                '"types": "dist/index.d.ts", "dependencies": {"react": "^18.2.0"}}'
            ),
            "package-lock.json": (
                '{"lockfileVersion": 3, "packages": {"node_modules/react": {"version": "18.3.1"},'
                ' "node_modules/typescript": {"version": "5.4.5"}}}'
            ),
        }
    )
    assert manifest.provides == [
        Provided(
            "npm",
            "@acme/ui",
            "1.2.0",
            "packages/ui/package.json",
            ["@acme/ui"],
            "packages/ui",
            {"main": "dist/index.js", "types": "dist/index.d.ts"},
        )
    ]
    assert _deps(manifest) == {
        ("npm", "react", "^18.2.0", "18.3.1", ""),
        ("npm", "typescript", "^5.4.0", "5.4.5", "dev"),
    }
    yarn = _read(
        {
            "package.json": '{"name": "app", "dependencies": {"lodash": "^4.17.0"}}',
            "yarn.lock": '"lodash@^4.17.0", lodash@^4.17.21:\n  version "4.17.21"\n',
        }
    )
    assert _deps(yarn) == {("npm", "lodash", "^4.17.0", "4.17.21", "")}


def test_go_module_with_requirements():
    manifest = _read(
        {
            "go.mod": (
                "module example.com/shop\n\ngo 1.22\n\nrequire (\n"
                "\texample.com/pay v1.4.0\n\tgolang.org/x/sync v0.7.0 // indirect\n)\n"
                "require github.com/pkg/errors v0.9.1\n"
            ),
            "go.sum": "example.com/pay v1.4.0 h1:x=\nexample.com/pay v1.4.0/go.mod h1:y=\n",
        }
    )
    assert [(p.ecosystem, p.name, p.imports) for p in manifest.provides] == [
        ("go", "example.com/shop", ["example.com/shop"])
    ]
    assert _deps(manifest) == {
        ("go", "example.com/pay", "v1.4.0", "v1.4.0", ""),
        ("go", "golang.org/x/sync", "v0.7.0", "v0.7.0", "indirect"),
        ("go", "github.com/pkg/errors", "v0.9.1", "v0.9.1", ""),
    }


def test_maven_and_gradle_coordinates_with_source_packages():
    pom = _read(
        {
            "billing/pom.xml": (
                '<project xmlns="http://maven.apache.org/POM/4.0.0">'
                "<parent><groupId>com.acme</groupId><version>3.0.0</version></parent>"
                "<artifactId>billing</artifactId>"
                "<dependencies><dependency><groupId>com.acme</groupId>"
                "<artifactId>money</artifactId><version>1.1.0</version></dependency>"
                "<dependency><groupId>junit</groupId><artifactId>junit</artifactId>"
                "<version>${junit.version}</version><scope>test</scope></dependency>"
                "</dependencies></project>"
            ),
            "billing/src/main/java/com/acme/billing/Invoice.java": "",
            "billing/src/main/java/com/acme/billing/tax/Rate.java": "",
        }
    )
    assert [(p.name, p.version, p.imports, p.folder) for p in pom.provides] == [
        ("com.acme:billing", "3.0.0", ["com.acme.billing"], "billing")
    ]
    assert _deps(pom) == {
        ("maven", "com.acme:money", "1.1.0", "1.1.0", ""),
        ("maven", "junit:junit", "${junit.version}", "", "test"),
    }
    gradle = _read(
        {
            "build.gradle.kts": (
                'group = "com.acme"\nversion = "0.4.0"\n'
                'dependencies {\n    implementation("com.squareup.okhttp3:okhttp:4.12.0")\n'
                '    testImplementation("org.junit.jupiter:junit-jupiter:5.10.0")\n}\n'
            ),
            "gradle.lockfile": "com.squareup.okhttp3:okhttp:4.12.1=runtimeClasspath\n",
        }
    )
    assert [(p.name, p.version) for p in gradle.provides] == [("com.acme:repo", "0.4.0")]
    assert _deps(gradle) == {
        ("maven", "com.squareup.okhttp3:okhttp", "4.12.0", "4.12.1", ""),
        ("maven", "org.junit.jupiter:junit-jupiter", "5.10.0", "", "test"),
    }


def test_cargo_crate_with_lock():
    manifest = _read(
        {
            "Cargo.toml": (
                '[package]\nname = "pay-core"\nversion = "0.3.0"\n'
                '[dependencies]\nserde = { version = "1.0", features = ["derive"] }\n'
                'anyhow = "1"\n[dev-dependencies]\nproptest = "1.4"\n'
            ),
            "Cargo.lock": '[[package]]\nname = "serde"\nversion = "1.0.210"\n',
        }
    )
    assert [(p.name, p.version, p.imports) for p in manifest.provides] == [
        ("pay-core", "0.3.0", ["pay_core"])
    ]
    assert _deps(manifest) == {
        ("cargo", "serde", "1.0", "1.0.210", ""),
        ("cargo", "anyhow", "1", "", ""),
        ("cargo", "proptest", "1.4", "", "dev"),
    }


def test_broken_manifests_declare_nothing_and_choices_are_read():
    manifest = _read(
        {
            "pyproject.toml": "[project\nname=",
            "package.json": "{not json",
            "pom.xml": "<project>",
            ".cartograph.toml": '[providers]\nlibpay = "libpay-fork"\n',
        },
        python=["app"],
    )
    assert manifest.provides == [Provided("pypi", "", imports=["app"])]
    assert manifest.depends == []
    assert manifest.choices == {"libpay": "libpay-fork"}


def test_versions_judged_against_the_provider():
    provided = Provided("pypi", "libpay", "1.3.0")
    assert version_mismatch(Dependency("pypi", "libpay", ">=1.0"), provided) == ""
    assert (
        version_mismatch(Dependency("pypi", "libpay", ">=2"), provided)
        == "requires >=2, the provider is at 1.3.0"
    )
    assert (
        version_mismatch(Dependency("pypi", "libpay", ">=1", "1.2.0"), provided)
        == "pins 1.2.0, the provider is at 1.3.0"
    )
    ui = Provided("npm", "@acme/ui", "2.1.0")
    assert version_mismatch(Dependency("npm", "@acme/ui", "^2.0.0"), ui) == ""
    assert version_mismatch(Dependency("npm", "@acme/ui", "~2.0.1"), ui) != ""
    assert version_mismatch(Dependency("npm", "@acme/ui", "^1.9.0 || ^2.1.0"), ui) == ""
    assert version_mismatch(Dependency("npm", "@acme/ui", "workspace:*"), ui) == ""
    assert (
        version_mismatch(
            Dependency("cargo", "pay-core", "0.3"), Provided("cargo", "pay-core", "0.3.5")
        )
        == ""
    )
    assert (
        version_mismatch(
            Dependency("cargo", "pay-core", "0.2"), Provided("cargo", "pay-core", "0.3.5")
        )
        != ""
    )
    # the project's own declaration, not an example's requirements file
    consumer = Manifest(
        "flask",
        depends=[
            Dependency("pypi", "werkzeug", "==2.3.3", "2.3.3", "examples/app/requirements.txt"),
            Dependency("pypi", "Werkzeug", ">=3.1", "", "pyproject.toml"),
        ],
    )
    chosen = declared(consumer, Provided("pypi", "werkzeug", "3.1.3"))
    assert chosen is not None and chosen.manifest == "pyproject.toml"


# ------------------------------------------------------------ hostile and mistaken configs

DEEP = "[" * 100_000 + "]" * 100_000  # 200 KB of nesting: past any parser's recursion
HOSTILE = {
    "pyproject.toml": f'[project]\nname = "deep"\nversion = "1.0"\nx = {DEEP}\n',
    "package.json": f'{{"name": "deep", "x": {DEEP}}}',
    "tsconfig.json": f'{{"compilerOptions": {{"paths": {DEEP}}}}}',
    # a dotted key of 3,000 parts (tomllib copies the parts once per part: 200 KB of them
    # takes it past 20 GB)
    ".cartograph.toml": "[providers]\n" + "a." * 3_000 + 'a = "x"\n',
    "deep/__init__.py": "",
    "deep/main.py": "def run():\n    return helper()\n\n\ndef helper():\n    return 1\n",
    "web/app.ts": 'import { x } from "./lib";\nexport function g() { return x; }\n',
    "web/lib.ts": "export const x = 1;\n",
}
HOSTILE_NOTES = [
    ".cartograph.toml: a dotted key has more than 128 parts, skipped",
    "package.json: nested more than 128 levels deep, skipped",
    "pyproject.toml: nested more than 128 levels deep, skipped",
    "tsconfig.json: nested more than 128 levels deep, skipped",
]


def test_config_files_too_deep_to_read_are_skipped_with_a_note(tmp_path, stores):
    """A run never fails on a configuration file it cannot read: the file is skipped, the
    run's notes say which and why, the code is indexed, and so on every later run."""
    from cartograph.index import index_repository
    from cartograph.query import callers, overview
    from indexing_support import write, write_tree

    store = stores.open()
    root = write_tree(tmp_path / "deep", HOSTILE)
    result = index_repository(store, root, "deep")
    assert result.notes == HOSTILE_NOTES
    assert [n.symbol.qualname for n in callers(store, "deep.main.helper").items] == [
        "deep.main.run"
    ]
    assert result.files == 4 and result.syntax_errors == []
    assert overview(store, "deep").manifest_notes == [
        note for note in HOSTILE_NOTES if not note.startswith("tsconfig")
    ]
    write(root, "deep/main.py", "def run():\n    return 2\n\n\ndef helper():\n    return 1\n")
    again = index_repository(store, root, "deep")
    assert again.parsed == 1 and again.notes == HOSTILE_NOTES
    assert callers(store, "deep.main.helper").items == []


def test_cartograph_toml_mistakes_are_reported_in_the_run_and_the_overview(tmp_path, stores):
    """An invalid `.cartograph.toml`, an entry that names no repository, a table Cartograph
    does not read, and a `[providers]` choice of a repository that does not provide the
    package are said in the index run's notes and in `overview` (the repository's state)."""
    from cartograph.index import index_repository
    from cartograph.query import overview
    from cartograph.render import render
    from indexing_support import write, write_tree

    store = stores.open()
    lib = write_tree(
        tmp_path / "libpay",
        {"pyproject.toml": '[project]\nname = "libpay"\n', "libpay/__init__.py": ""},
    )
    index_repository(store, lib, "libpay")
    shop = write_tree(
        tmp_path / "shop",
        {
            "pyproject.toml": '[project]\nname = "shop"\ndependencies = ["libpay"]\n',
            "shop/__init__.py": "import libpay\nimport requests\n",
            ".cartograph.toml": (
                '[providers]\nlibpay = "libpay-fork"\nrequests = "libpay"\n'
                '[provider]\nlibpay = "libpay"\n[services]\napi = 3\n'
            ),
        },
    )
    expected = [
        ".cartograph.toml: [provider] is no table Cartograph reads ([providers], [services]), "
        "ignored",
        ".cartograph.toml: [services] api = 3 names no repository, ignored",
        ".cartograph.toml: [providers] libpay = 'libpay-fork': no repository named libpay-fork "
        "is indexed; nothing is bound to libpay from it",
        ".cartograph.toml: [providers] requests = 'libpay': libpay does not provide requests; "
        "nothing is bound to requests from it",
    ]
    notes = index_repository(store, shop, "shop").notes
    assert notes[: len(expected)] == expected  # then the binding's own: libpay is left unbound
    assert notes[len(expected) :] == [
        "libpay is provided by libpay: nothing bound to it; choose one in .cartograph.toml "
        "[providers]"
    ]
    shown = overview(store, "shop")
    assert shown.manifest_notes == expected
    assert f"manifest: {expected[2]}" in render(shown)

    write(shop, ".cartograph.toml", '[providers]\nlibpay = "libpay"\nrequests = \n')
    notes = index_repository(store, shop, "shop").notes
    assert len(notes) == 1 and notes[0].startswith(".cartograph.toml: not valid TOML (")
    assert notes[0].endswith("), skipped")
    assert overview(store, "shop").manifest_notes == notes
    write(shop, ".cartograph.toml", '[providers]\nlibpay = "libpay"\n')
    assert index_repository(store, shop, "shop").notes == []
    assert overview(store, "shop").manifest_notes == []
