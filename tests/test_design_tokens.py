"""A design system's shared definitions: the stylesheet lexer's facts (CSS custom properties,
SCSS and Less variables, their uses and imports), how uses bind (the nearest SCSS/Less
definition; every definition of a custom property the page may load, a provider's too), and
the design-tokens answer across repositories, on both stores, in either order of indexing."""

from __future__ import annotations

from cartograph.index import index_repository
from cartograph.parsing.styles import extract
from cartograph.query import design_tokens
from helpers import graph_edges
from indexing_support import snapshot, write, write_tree


def test_css_definitions_with_selectors_and_uses():
    facts = extract(
        "css",
        b"/* --commented: 1 */\n"
        b':root { --color-primary: #06f; --font: "Inter", sans-serif; }\n'
        b"[data-theme=dark] {\n  --color-primary: #39f;\n}\n"
        b".btn--wide { color: var(--color-primary, red); margin: calc(var( --gap) * 2);\n"
        b"  background: url(//cdn.example.com/a--b.png); --alias: var(--gap); }\n"
        b'@import "tokens.css";\n',
    )
    assert facts["defs"] == [
        ["--color-primary", 2, "#06f", ":root"],
        ["--font", 2, '"Inter", sans-serif', ":root"],
        ["--color-primary", 4, "#39f", "[data-theme=dark]"],
        ["--alias", 7, "var(--gap)", ".btn--wide"],
    ]
    assert facts["uses"] == [["--color-primary", 6], ["--gap", 6], ["--gap", 7]]
    assert facts["imports"] == [["tokens.css", 8]]


def test_scss_and_less_variables():
    scss = extract(
        "scss",
        b'@use "sass:math";\n@use "~@acme/tokens/scss/colors";\n// $commented: 1;\n'
        b"$brand: #06f !default;\n$map: (primary: $brand, gap: 4px);\n"
        b".hero { color: $brand; --x: #{$accent}; padding: math.div($gap, 2); }\n"
        b"@mixin tint($amount) { opacity: $amount; }\n",
    )
    assert [d[:3] for d in scss["defs"]] == [
        ["$brand", 4, "#06f !default"],
        ["$map", 5, "(primary: $brand, gap: 4px)"],
        ["--x", 6, "#{$accent}"],
    ]
    assert [u[0] for u in scss["uses"]] == [
        "$brand",
        "$brand",
        "$accent",
        "$gap",
        "$amount",
        "$amount",
    ]
    assert [spec for spec, _ in scss["imports"]] == ["sass:math", "~@acme/tokens/scss/colors"]
    less = extract(
        "less",
        b'@import (reference) "colors.less";\n@brand: #06f;\n'
        b".btn { color: @brand; @media (min-width: 10px) { color: darken(@brand, 10%); } }\n",
    )
    assert less["defs"] == [["@brand", 2, "#06f", ""]]
    assert less["uses"] == [["@brand", 3], ["@brand", 3]]
    assert less["imports"] == [["colors.less", 1]]


TOKENS = {
    "package.json": '{"name": "@acme/tokens", "version": "4.0.0"}',
    "css/tokens.css": (
        ":root {\n  --color-primary: #0066ff;\n  --color-accent: #0066ff;\n  --space-1: 4px;\n}\n"
        '[data-theme="dark"] {\n  --color-primary: #3399ff;\n}\n'
    ),
    "scss/_colors.scss": "$brand: #0066ff !default;\n$brand-dark: darken($brand, 10%);\n",
}
APP = {
    "package.json": '{"name": "app", "dependencies": {"@acme/tokens": "^4.0.0"}}',
    "src/app.css": (
        ".button {\n  color: var(--color-primary);\n  padding: var(--space-1);\n}\n"
        ".card { --space-1: 6px; margin: var(--space-1); }\n"
    ),
    "src/theme.scss": (
        '@use "~@acme/tokens/scss/colors";\n'
        ".hero { background: $brand-dark; border-color: $nowhere; }\n"
    ),
    "src/_local.scss": "$gap: 8px;\n",
    "src/layout.scss": '@import "local";\n.grid { gap: $gap; }\n',
}


def _index(store, root, name):
    return index_repository(store, root, name=name, workers=1, history=False)


def _refs(store, repo):
    return {
        (src, dst, via) for kind, src, dst, via in graph_edges(store, repo) if kind == "REFERENCES"
    }


WANTED = {
    ("src/app", "--color-primary", "name"),  # the provider's :root definition …
    ("src/app", "--color-primary~2", "name"),  # … and its dark theme: the cascade decides
    ("src/app", "--space-1", "scope"),  # the file's own (.card) …
    ("src/theme", "$brand-dark", "import"),  # through @use of the provider's partial
    ("src/layout", "$gap", "import"),  # a local partial (_local.scss)
}


def test_tokens_bind_across_repositories_in_either_order(tmp_path, stores):
    store = stores.open()
    roots = {
        "app": write_tree(tmp_path / "app", APP),
        "tokens": write_tree(tmp_path / "tokens", TOKENS),
    }
    _index(store, roots["app"], "app")
    _index(store, roots["tokens"], "tokens")
    first = {name: snapshot(store, name) for name in roots}
    for name in roots:
        store.repos.delete_repo(name)
    _index(store, roots["tokens"], "tokens")
    _index(store, roots["app"], "app")
    assert {name: snapshot(store, name) for name in roots} == first

    refs = _refs(store, "app")
    assert refs >= WANTED
    # … and the provider's :root --space-1 too (a .button inside a .card gets the card's)
    targets = {e["dst"] for e in store.graph.export("app") if e.get("label") == "REFERENCES"}
    assert "tokens:css/tokens.css#--space-1" in targets
    assert "app:src/app.css#--space-1" in targets
    assert not {r for r in refs if r[1] == "$nowhere"}  # never invented

    report = design_tokens(store, "color-primary")
    assert [
        (d.symbol.repo, d.symbol.qualname, d.value, d.selector) for d in report.definitions
    ] == [
        ("tokens", "--color-primary", "#0066ff", ":root"),
        ("tokens", "--color-primary~2", "#3399ff", '[data-theme="dark"]'),
    ]
    assert report.consumers == {"app": 1}  # one use site, which can mean either definition
    assert report.defined_twice == {
        "--color-primary (tokens)": ["tokens:css/tokens.css:2", "tokens:css/tokens.css:7"]
    }
    provider = design_tokens(store, repo="tokens")
    assert provider.consumers == {"app": 4}
    assert [(o.name, o.defined_in, o.values) for o in provider.overrides] == [
        ("--space-1", ["tokens", "app"], {"app": ["6px"], "tokens": ["4px"]})
    ]
    assert provider.same_value == {"#0066ff (tokens)": ["--color-accent", "--color-primary"]}
    assert provider.envelope.crossings[0].package == "@acme/tokens"


def test_a_removed_token_leaves_its_consumers(tmp_path, stores):
    store = stores.open()
    roots = {
        "app": write_tree(tmp_path / "app", APP),
        "tokens": write_tree(tmp_path / "tokens", TOKENS),
    }
    _index(store, roots["tokens"], "tokens")
    _index(store, roots["app"], "app")
    write(
        roots["tokens"],
        "css/tokens.css",
        TOKENS["css/tokens.css"].replace(
            '[data-theme="dark"] {\n  --color-primary: #3399ff;\n}\n', ""
        ),
    )
    result = _index(store, roots["tokens"], "tokens")
    assert result.consumers == {"app": 1}
    refs = _refs(store, "app")
    assert ("src/app", "--color-primary~2", "name") not in refs
    assert ("src/app", "--color-primary", "name") in refs
