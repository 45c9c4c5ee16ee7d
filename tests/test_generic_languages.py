"""The generic tier: tags facts (cartograph.parsing.tags) and name-based resolution
(cartograph.resolve.generic) for Go, Java, Kotlin, C#, Rust, Ruby, PHP, C and C++.

Each language has a small project under tests/languages/<language>/ (source files only, never
Python: pytest must not collect anything there). The tests pin exact symbols, the exact set of
CALLS/INHERITS edges (so a wrong guess fails as surely as a missed edge) and the calls that
must stay unresolved.
"""

from __future__ import annotations

import marshal
from functools import cache
from pathlib import Path

import pytest
from cartograph.parsing.tags import FACTS_VERSION, LANGUAGES, SUFFIXES, extract, interface_of
from cartograph.resolve.core import FileResolution
from cartograph.resolve.generic import GenericProgram

FIXTURES = Path(__file__).parent / "languages"
REPO = "r"


@cache
def _facts(language: str) -> dict[str, dict]:
    root = FIXTURES / language
    out = {}
    for file in sorted(root.rglob("*")):
        if file.is_file() and file.suffix in SUFFIXES:
            out[file.relative_to(root).as_posix()] = extract(
                SUFFIXES[file.suffix], file.read_bytes()
            )
    return out


@cache
def _resolved(language: str) -> dict[str, FileResolution]:
    root = FIXTURES / language
    facts = _facts(language)

    def read_text(path: str) -> str | None:
        file = root / path
        return file.read_text() if file.is_file() else None

    program = GenericProgram(REPO, facts, facts.get, read_text)
    return {path: program.resolve_file(path) for path in facts}


def _strip(sid: str) -> str:
    return sid.removeprefix(REPO + ":")


def _edges(language: str) -> set[tuple[str, str, str, str, float]]:
    return {
        (e.type, _strip(e.src), _strip(e.dst), e.via, e.confidence)
        for r in _resolved(language).values()
        for e in r.edges
    }


def _unresolved(language: str) -> set[tuple[str, str, str]]:
    return {
        (_strip(u.src), u.name, u.external)
        for r in _resolved(language).values()
        for u in r.unresolved
    }


def _symbols(language: str, path: str) -> dict[str, tuple]:
    return {
        s.qualname: (s.kind, s.start_line, s.end_line, s.exported, s.parent and _strip(s.parent))
        for s in _resolved(language)[path].symbols
    }


# ------------------------------------------------------------------------------- facts


def test_every_grammar_loads_and_every_query_compiles():
    for language in LANGUAGES:
        facts = extract(language, b"")
        assert facts["v"] == FACTS_VERSION
        assert facts["errors"] == 0
        assert facts["lines"] == 0
    assert set(SUFFIXES.values()) == set(LANGUAGES)


@pytest.mark.parametrize(
    ("language", "source"),
    [
        ("go", b"package x\nfunc A() {\n  b(\n}\nfunc C() { d() }\n"),
        ("java", b"class A { void a() { b( } void c() { d(); } }"),
        ("kotlin", b"class A {\n fun a() { b( }\n fun c() { d() }\n}\n"),
        ("csharp", b"class A { void a() { b( } void C() { d(); } }"),
        ("rust", b"fn a() { b( }\nfn c() { d(); }\n"),
        ("ruby", b"class A\n def a\n  b(\n end\n def c; d; end\nend\n"),
        ("php", b"<?php\nfunction a() { b( }\nfunction c() { d(); }\n"),
        ("c", b"int a( { b(); }\nint c(void) { d(); return 0; }\n"),
        ("cpp", b"class A { void a() { b( } };\nvoid c() { d(); }\n"),
    ],
)
def test_broken_source_yields_what_parses(language, source):
    facts = extract(language, source)
    assert facts["errors"] >= 1
    marshal.dumps(facts)  # plain data only
    assert any(row[0] == "d" for row in facts["calls"]) or facts["defs"]


def test_undecodable_and_binary_input_never_raises():
    for language in LANGUAGES:
        facts = extract(language, b"\xff\xfe\x00\x00garbage {{{ ((( \x00")
        marshal.dumps(facts)


def test_facts_are_plain_and_deterministic():
    for language in ("go", "java", "cpp", "ruby"):
        for path, facts in _facts(language).items():
            root = FIXTURES / language / path
            again = extract(SUFFIXES[root.suffix], root.read_bytes())
            assert marshal.dumps(again) == marshal.dumps(facts), path
            assert interface_of(again) == interface_of(facts)


def test_interface_ignores_bodies_and_lines_but_not_definitions():
    before = extract("go", b"package x\n\nfunc A() {\n\tb()\n}\n")
    body = extract("go", b"package x\n\n\n// moved\nfunc A() {\n\tc()\n\td()\n}\n")
    added = extract("go", b"package x\n\nfunc A() {\n\tb()\n}\n\nfunc B() {}\n")
    renamed = extract("go", b"package y\n\nfunc A() {\n\tb()\n}\n")
    assert interface_of(before) == interface_of(body)
    assert interface_of(before) != interface_of(added)
    assert interface_of(before) != interface_of(renamed)
    java = extract("java", b"class A extends B { void m() {} }")
    rebased = extract("java", b"class A extends C { void m() {} }")
    assert interface_of(java) != interface_of(rebased)


def test_go_facts_layout():
    facts = _facts("go")["store/store.go"]
    assert facts["package"] == "store"
    rows = {row[2]: row for row in facts["defs"]}
    kind, name, _q, parent, start, end, signature, _doc, exported, ns, member, decl, self_name = (
        rows["store.Store.Add"]
    )
    assert (kind, name, start, end, exported, ns, member, decl, self_name) == (
        "method",
        "Add",
        13,
        16,
        True,
        "store",
        True,
        False,
        "s",
    )
    assert facts["defs"][parent][2] == "store.Store"
    assert signature == "func (s *Store) Add(item string)"
    assert rows["store.NewStore"][7] == "NewStore makes an empty Store."
    assert rows["store.Store.log"][8] is False
    calls = {(c[0], c[1]) for c in facts["calls"]}
    assert {("Store", None), ("append", None), ("log", "s"), ("format", None)} <= calls
    main = _facts("go")["cmd/server/main.go"]
    assert main["imports"] == [["fmt", None, 4, ""], ["example.com/shop/store", None, 6, ""]]


def test_exported_rules():
    def exported(language: str, source: bytes) -> dict[str, bool]:
        return {row[2]: row[8] for row in extract(language, source)["defs"]}

    assert exported(
        "rust", b"pub struct A;\nstruct B;\nimpl A { pub fn x(&self) {} fn y() {} }"
    ) == {
        "A": True,
        "B": False,
        "A.x": True,
        "A.y": False,
    }
    assert exported("kotlin", b"class A {\n  fun x() {}\n  private fun y() {}\n}\n") == {
        "A": True,
        "A.x": True,
        "A.y": False,
    }
    assert exported("java", b"public class A { void x() {} public void y() {} }") == {
        "A": True,
        "A.x": False,
        "A.y": True,
    }
    assert exported("ruby", b"class A\n  def x; end\n  private\n  def y; end\nend\n") == {
        "A": True,
        "A.x": True,
        "A.y": False,
    }
    assert exported(
        "cpp", b"class A {\n  void x();\n public:\n  void y();\n};\nstruct B { void z(); };\n"
    ) == {"A": True, "A.x": False, "A.y": True, "B": True, "B.z": True}
    assert exported("c", b"static int x(void) { return 0; }\nint y(void) { return 1; }\n") == {
        "x": False,
        "y": True,
    }
    assert exported("php", b"<?php class A { private function x() {} function y() {} }") == {
        "A": True,
        "A.x": False,
        "A.y": True,
    }


def test_qualnames_by_language_rules():
    def quals(language: str, source: bytes) -> list[tuple[str, str]]:
        return [(row[2], row[0]) for row in extract(language, source)["defs"]]

    assert quals(
        "rust", b"mod m { pub struct S; impl S { fn new() {} } }\ntrait T { fn t(&self); }"
    ) == [
        ("m.S", "class"),
        ("m.S.new", "method"),
        ("T", "interface"),
        ("T.t", "method"),
    ]
    assert quals(
        "cpp", b"namespace a { namespace b { struct S { void f(); }; } }\nvoid a::b::S::f() {}"
    ) == [
        ("a.b.S", "class"),
        ("a.b.S.f", "method"),
        ("a.b.S.f", "method"),
    ]
    assert quals(
        "php", b"<?php\nnamespace A\\B;\ninterface I {}\nenum E {}\nfunction f() {}\n"
    ) == [
        ("A.B.I", "interface"),
        ("A.B.E", "enum"),
        ("A.B.f", "function"),
    ]
    assert quals("csharp", b"namespace N { namespace M { record R; enum E { X } } }") == [
        ("N.M.R", "class"),
        ("N.M.E", "enum"),
    ]
    assert quals(
        "kotlin",
        b"package p\n\nclass A {\n  companion object {\n    fun make() = A()\n  }\n}\ntypealias T = A\n",
    ) == [
        ("p.A", "class"),
        ("p.A.make", "method"),
        ("p.T", "type"),
    ]
    assert quals("go", b"package p\ntype I interface { M() }\ntype N = int\n") == [
        ("p.I", "interface"),
        ("p.I.M", "method"),
        ("p.N", "type"),
    ]


def test_a_c_header_holding_cpp_is_parsed_as_cpp():
    facts = _facts("cpp")["src/shape.h"]
    assert facts["language"] == "c"
    assert facts["dialect"] == "cpp"
    assert facts["errors"] == 0
    plain = extract("c", b"int add(int a, int b);\nstruct P { int x; };\n")
    assert plain["dialect"] == "c"


# ------------------------------------------------------------------------------- symbols


def test_module_symbol_and_parents():
    symbols = _symbols("go", "store/store.go")
    assert symbols["store/store"] == ("module", 1, 20, True, None)
    assert symbols["store.Store"] == ("class", 4, 6, True, "store/store.go#store/store")
    assert symbols["store.NewStore"] == ("function", 9, 11, True, "store/store.go#store/store")
    assert symbols["store.Store.Add"] == ("method", 13, 16, True, "store/store.go#store.Store")
    assert symbols["store.Store.log"] == ("method", 18, 20, False, "store/store.go#store.Store")
    util = _symbols("go", "store/util.go")
    assert util["store.Closer"][0] == "interface"
    assert util["store.Closer.Close"] == ("method", 10, 10, True, "store/util.go#store.Closer")


def test_java_symbols():
    path = "src/main/java/com/shop/service/Cart.java"
    symbols = _symbols("java", path)
    assert symbols["com.shop.service.Cart"] == ("class", 8, 38, True, f"{path}#{path[:-5]}")
    assert symbols["com.shop.service.Cart.put"][:4] == ("method", 11, 19, True)
    assert symbols["com.shop.service.Cart.Line"][:2] == ("class", 33)
    assert symbols["com.shop.service.Cart.Line.count"][4] == f"{path}#com.shop.service.Cart.Line"
    item = {
        s.qualname: s for s in _resolved("java")["src/main/java/com/shop/model/Item.java"].symbols
    }
    assert item["com.shop.model.Item"].doc == "An item of a cart."
    assert item["com.shop.model.Item.of"].signature == "public static Item of(String name)"


def test_overloads_and_declarations_collapse_to_one_symbol():
    facts = {
        "a.cpp": extract(
            "cpp",
            b"struct S {\n  void f();\n};\nvoid S::f() {}\nvoid g(int);\nvoid g(int) {}\nvoid g(char) {}\n",
        )
    }
    program = GenericProgram(REPO, facts, facts.get, lambda p: None)
    symbols = {
        s.qualname: (s.start_line, s.end_line) for s in program.resolve_file("a.cpp").symbols
    }
    assert symbols == {"a": (1, 7), "S": (1, 3), "S.f": (4, 4), "g": (6, 6)}


def test_cpp_out_of_line_definitions():
    symbols = _symbols("cpp", "src/shape.cpp")
    assert symbols["geo.Shape.twice"] == ("method", 9, 9, True, "src/shape.cpp#src/shape")
    header = _symbols("cpp", "src/shape.h")
    assert header["geo.Circle"][:3] == ("class", 12, 19)
    assert header["geo.Circle.Circle"][4] == "src/shape.h#geo.Circle"


# ------------------------------------------------------------------------------- edges

EXPECTED_EDGES = {
    "go": {
        ("CALLS", "cmd/server/main.go#main.main", "cmd/server/main.go#main.helper", "name", 0.5),
        ("CALLS", "cmd/server/main.go#main.main", "cmd/server/run.go#main.run", "name", 0.5),
        ("CALLS", "cmd/server/main.go#main.main", "store/store.go#store.NewStore", "import", 0.9),
        ("CALLS", "cmd/server/run.go#main.run", "cmd/server/main.go#main.helper", "name", 0.5),
        ("CALLS", "cmd/server/run.go#main.run", "store/store.go#store.NewStore", "import", 0.9),
        ("CALLS", "store/store.go#store.NewStore", "store/store.go#store.Store", "name", 0.5),
        ("CALLS", "store/store.go#store.Store.Add", "store/store.go#store.Store.log", "name", 0.5),
        ("CALLS", "store/store.go#store.Store.log", "store/util.go#store.format", "name", 0.5),
        ("CALLS", "store/util.go#store.closeAll", "store/store.go#store.Store.Add", "name", 0.3),
    },
    "java": {
        (t, f"src/main/java/com/shop/{a}", f"src/main/java/com/shop/{b}", via, conf)
        for t, a, b, via, conf in [
            (
                "CALLS",
                "model/Item.java#com.shop.model.Item.of",
                "model/Item.java#com.shop.model.Item",
                "import",
                0.9,
            ),
            (
                "CALLS",
                "model/Item.java#com.shop.model.Item.of",
                "model/Item.java#com.shop.model.Item.Item",
                "import",
                0.9,
            ),
            (
                "CALLS",
                "service/Cart.java#com.shop.service.Cart.Line.count",
                "service/Cart.java#com.shop.service.Cart.total",
                "name",
                0.5,
            ),
            (
                "CALLS",
                "service/Cart.java#com.shop.service.Cart.put",
                "model/Base.java#com.shop.model.Base.audit",
                "name",
                0.5,
            ),
            (
                "CALLS",
                "service/Cart.java#com.shop.service.Cart.put",
                "model/Item.java#com.shop.model.Item",
                "import",
                0.9,
            ),
            (
                "CALLS",
                "service/Cart.java#com.shop.service.Cart.put",
                "model/Item.java#com.shop.model.Item.Item",
                "import",
                0.9,
            ),
            (
                "CALLS",
                "service/Cart.java#com.shop.service.Cart.put",
                "model/Item.java#com.shop.model.Item.of",
                "import",
                0.9,
            ),
            (
                "CALLS",
                "service/Cart.java#com.shop.service.Cart.put",
                "service/Cart.java#com.shop.service.Cart.log",
                "name",
                0.5,
            ),
            (
                "CALLS",
                "service/Cart.java#com.shop.service.Cart.put",
                "service/Cart.java#com.shop.service.Cart.total",
                "name",
                0.5,
            ),
            (
                "CALLS",
                "service/Cart.java#com.shop.service.Cart.put",
                "service/Helper.java#com.shop.service.Helper.format",
                "import",
                0.9,
            ),
            (
                "INHERITS",
                "service/Cart.java#com.shop.service.Cart",
                "model/Base.java#com.shop.model.Base",
                "import",
                0.9,
            ),
            (
                "INHERITS",
                "service/Cart.java#com.shop.service.Cart",
                "service/Totals.java#com.shop.service.Totals",
                "import",
                0.9,
            ),
        ]
    },
    "kotlin": {
        (t, f"src/main/kotlin/com/shop/{a}", f"src/main/kotlin/com/shop/{b}", via, conf)
        for t, a, b, via, conf in [
            (
                "CALLS",
                "model/Item.kt#com.shop.model.itemOf",
                "model/Item.kt#com.shop.model.Item",
                "import",
                0.9,
            ),
            (
                "CALLS",
                "service/Cart.kt#com.shop.service.Cart.put",
                "model/Item.kt#com.shop.model.Item",
                "import",
                0.9,
            ),
            (
                "CALLS",
                "service/Cart.kt#com.shop.service.Cart.put",
                "model/Item.kt#com.shop.model.itemOf",
                "import",
                0.9,
            ),
            (
                "CALLS",
                "service/Cart.kt#com.shop.service.Cart.put",
                "service/Base.kt#com.shop.service.Base.audit",
                "name",
                0.5,
            ),
            (
                "CALLS",
                "service/Cart.kt#com.shop.service.Cart.put",
                "service/Base.kt#com.shop.service.Registry.register",
                "import",
                0.9,
            ),
            (
                "CALLS",
                "service/Cart.kt#com.shop.service.Cart.put",
                "service/Cart.kt#com.shop.service.Cart.log",
                "name",
                0.5,
            ),
            (
                "INHERITS",
                "service/Cart.kt#com.shop.service.Cart",
                "service/Base.kt#com.shop.service.Base",
                "import",
                0.9,
            ),
        ]
    },
    "csharp": {
        (
            "CALLS",
            "Shop/Models/Item.cs#Shop.Models.Item.Create",
            "Shop/Models/Item.cs#Shop.Models.Item",
            "name",
            0.5,
        ),
        (
            "CALLS",
            "Shop/Models/Item.cs#Shop.Models.Item.Create",
            "Shop/Models/Item.cs#Shop.Models.Item.Item",
            "name",
            0.5,
        ),
        (
            "CALLS",
            "Shop/Services/Cart.cs#Shop.Services.Cart.Add",
            "Shop/Models/Item.cs#Shop.Models.Item",
            "import",
            0.9,
        ),
        (
            "CALLS",
            "Shop/Services/Cart.cs#Shop.Services.Cart.Add",
            "Shop/Models/Item.cs#Shop.Models.Item.Create",
            "import",
            0.9,
        ),
        (
            "CALLS",
            "Shop/Services/Cart.cs#Shop.Services.Cart.Add",
            "Shop/Models/Item.cs#Shop.Models.Item.Item",
            "import",
            0.9,
        ),
        (
            "CALLS",
            "Shop/Services/Cart.cs#Shop.Services.Cart.Add",
            "Shop/Services/BaseCart.cs#Shop.Services.BaseCart.Validate",
            "name",
            0.5,
        ),
        (
            "CALLS",
            "Shop/Services/Cart.cs#Shop.Services.Cart.Add",
            "Shop/Services/Cart.cs#Shop.Services.Cart.Log",
            "name",
            0.5,
        ),
        (
            "INHERITS",
            "Shop/Services/Cart.cs#Shop.Services.Cart",
            "Shop/Services/BaseCart.cs#Shop.Services.BaseCart",
            "name",
            0.5,
        ),
        (
            "INHERITS",
            "Shop/Services/Cart.cs#Shop.Services.Cart",
            "Shop/Services/BaseCart.cs#Shop.Services.ITotals",
            "name",
            0.5,
        ),
    },
    "rust": {
        ("CALLS", "src/geo/shapes.rs#Circle.new", "src/geo/mod.rs#unit", "import", 0.9),
        ("CALLS", "src/geo/shapes.rs#Circle.new", "src/geo/shapes.rs#Circle", "name", 0.5),
        ("CALLS", "src/geo/shapes.rs#Circle.scale", "src/geo/shapes.rs#Circle.area", "name", 0.5),
        ("CALLS", "src/geo/shapes.rs#Circle.scale", "src/geo/shapes.rs#Circle.factor", "name", 0.5),
        ("CALLS", "src/lib.rs#area_sum", "src/geo/shapes.rs#Circle.new", "import", 0.9),
        ("CALLS", "src/lib.rs#area_sum", "src/util.rs#double", "import", 0.9),  # path and alias
        ("CALLS", "src/util.rs#double", "src/util.rs#helper", "name", 0.5),
        ("CALLS", "src/util.rs#helper", "src/geo/mod.rs#unit", "import", 0.9),
        ("INHERITS", "src/geo/shapes.rs#Circle", "src/geo/shapes.rs#Shape", "name", 0.5),
        ("INHERITS", "src/geo/shapes.rs#Square", "src/geo/shapes.rs#Shape", "name", 0.5),
    },
    "ruby": {
        ("CALLS", "lib/shop/cart.rb#Shop.Cart.add", "lib/shop/cart.rb#Shop.Cart.log", "name", 0.5),
        (
            "CALLS",
            "lib/shop/cart.rb#Shop.Cart.add",
            "lib/shop/helpers.rb#Shop.Helpers.format_name",
            "name",
            0.5,
        ),
        ("CALLS", "lib/shop/cart.rb#Shop.Cart.add", "lib/shop/item.rb#Shop.Item", "name", 0.5),
        (
            "CALLS",
            "lib/shop/cart.rb#Shop.Cart.add",
            "lib/shop/item.rb#Shop.Item.initialize",
            "name",
            0.5,
        ),
        ("INHERITS", "lib/shop/cart.rb#Shop.Cart", "lib/shop/base.rb#Shop.Base", "name", 0.5),
        ("INHERITS", "lib/shop/cart.rb#Shop.Cart", "lib/shop/helpers.rb#Shop.Helpers", "name", 0.5),
    },
    "php": {
        (
            "CALLS",
            "src/Http/UserController.php#App.Http.UserController.show",
            "src/Http/helpers.php#App.Http.helper",
            "name",
            0.5,
        ),
        (
            "CALLS",
            "src/Http/UserController.php#App.Http.UserController.show",
            "src/Models/Model.php#App.Models.Model.find",
            "import",
            0.9,
        ),
        (
            "CALLS",
            "src/Http/UserController.php#App.Http.UserController.show",
            "src/Models/User.php#App.Models.User",
            "import",
            0.9,
        ),
        (
            "CALLS",
            "src/Http/UserController.php#App.Http.UserController.show",
            "src/Models/User.php#App.Models.User.__construct",
            "import",
            0.9,
        ),
        (
            "CALLS",
            "src/Models/User.php#App.Models.User.name",
            "src/Models/User.php#App.Models.User.format",
            "name",
            0.5,
        ),
        (
            "INHERITS",
            "src/Models/User.php#App.Models.User",
            "src/Models/Model.php#App.Models.Model",
            "name",
            0.5,
        ),
    },
    "c": {
        ("CALLS", "src/main.c#main", "lib/log.c#log_line", "name", 0.5),
        ("CALLS", "src/main.c#main", "src/main.c#twice", "name", 0.5),
        ("CALLS", "src/main.c#twice", "src/util.c#add", "name", 0.5),
    },
    "cpp": {
        ("CALLS", "src/main.cpp#main", "src/shape.cpp#geo.Circle.Circle", "name", 0.5),
        ("CALLS", "src/main.cpp#main", "src/shape.cpp#geo.Shape.twice", "name", 0.3),
        ("CALLS", "src/main.cpp#main", "src/shape.h#geo.Circle", "name", 0.5),
        ("CALLS", "src/shape.cpp#geo.Shape.twice", "src/shape.h#geo.Shape.area", "name", 0.5),
        ("INHERITS", "src/shape.h#geo.Circle", "src/shape.h#geo.Shape", "name", 0.5),
    },
}

# calls that must stay unresolved: ambiguous names, unknown receivers, external libraries
EXPECTED_UNRESOLVED = {
    "go": {
        ("cmd/server/main.go#main.main", "s.Add", ""),  # not in package main: never guessed
        ("cmd/server/main.go#main.main", "fmt.Println", "fmt"),
        ("store/util.go#store.format", "strings.ToUpper", "strings"),
        ("store/util.go#store.closeAll", "c.Close", ""),  # three Close methods
    },
    "java": {
        (
            "src/main/java/com/shop/service/Cart.java#src/main/java/com/shop/service/Cart",
            "ArrayList",
            "java.util",
        ),
        ("src/main/java/com/shop/service/Cart.java#com.shop.service.Cart.put", "items.add", ""),
        (
            "src/main/java/com/shop/service/Cart.java#com.shop.service.Cart.log",
            "System.out.println",
            "",
        ),
        ("src/main/java/com/shop/service/Cart.java#com.shop.service.Cart.total", "items.size", ""),
        (
            "src/main/java/com/shop/service/Cart.java#com.shop.service.Cart.start",
            "task.run",
            "",
        ),  # Helper.run, Runner.run
        ("src/main/java/com/shop/service/Helper.java#com.shop.service.Helper.format", "s.trim", ""),
    },
    "kotlin": {
        ("src/main/kotlin/com/shop/model/Item.kt#com.shop.model.Item.label", "name.uppercase", ""),
        ("src/main/kotlin/com/shop/service/Cart.kt#com.shop.service.Cart.put", "items.add", ""),
    },
    "csharp": {("Shop/Services/Cart.cs#Shop.Services.Cart.Add", "Console.WriteLine", "")},
    "rust": {
        ("src/lib.rs#area_sum", "c.area", ""),  # Shape.area, Circle.area, Square.area
        ("src/lib.rs#area_sum", "serde_json::to_string", "serde_json"),
        ("src/lib.rs#area_sum", "serde_json::to_string(&total).ok", ""),
        ("src/lib.rs#area_sum", "items.len", ""),
        ("src/util.rs#helper", "x.abs", ""),
    },
    "ruby": {
        ("lib/shop/cart.rb#Shop.Cart.add", "JSON.generate", ""),
        ("lib/shop/cart.rb#Shop.Cart.show", "thing.label", ""),  # Item.label, Tag.label
        ("lib/shop/helpers.rb#Shop.Helpers.format_name", "name.strip", ""),
        ("lib/shop/item.rb#Shop.Item.label", "@name.to_s", ""),
    },
    "php": {
        ("src/Http/UserController.php#App.Http.UserController.show", "$log->info", ""),
        ("src/Http/UserController.php#App.Http.UserController.show", "$user->name", ""),
        ("src/Models/User.php#App.Models.User.format", "strtoupper", ""),
    },
    "c": {
        ("lib/log.c#log_line", "puts", ""),
        ("src/main.c#main", "printf", ""),
        ("src/main.c#main", "note", ""),  # defined in a.c and in b.c
        ("src/main.c#other", "hidden", ""),  # static in c.c: private to that file
    },
    "cpp": {
        ("src/main.cpp#main", "p->area", ""),  # Shape.area, Circle.area
        ("src/shape.cpp#geo.Circle.area", "std::acos", "std"),
    },
}


@pytest.mark.parametrize("language", sorted(EXPECTED_EDGES))
def test_edges_are_exactly_the_provable_ones(language):
    assert _edges(language) == EXPECTED_EDGES[language]


@pytest.mark.parametrize("language", sorted(EXPECTED_UNRESOLVED))
def test_unbound_calls_stay_unresolved(language):
    assert _unresolved(language) == EXPECTED_UNRESOLVED[language]


def test_edges_carry_lines_and_counts():
    edges = {
        (_strip(e.src), _strip(e.dst)): e
        for r in _resolved("csharp").values()
        for e in r.edges
        if e.type == "CALLS"
    }
    log = edges[
        (
            "Shop/Services/Cart.cs#Shop.Services.Cart.Add",
            "Shop/Services/Cart.cs#Shop.Services.Cart.Log",
        )
    ]
    assert (log.lines, log.count) == ([12, 15], 2)
    rust = {
        (_strip(e.src), _strip(e.dst)): (e.lines, e.count)
        for e in _resolved("rust")["src/lib.rs"].edges
    }
    assert rust[("src/lib.rs#area_sum", "src/util.rs#double")] == ([10, 11], 2)


def test_imports_and_deps():
    go = _resolved("go")
    assert go["cmd/server/run.go"].imports == [("package", "example.com/shop/store", ["st"])]
    assert go["cmd/server/main.go"].imports == [
        ("package", "fmt", []),
        ("package", "example.com/shop/store", []),
    ]
    assert go["store/store.go"].deps == {"store/util.go"}
    assert "cmd/server/main.go" not in go["store/store.go"].deps
    java = _resolved("java")["src/main/java/com/shop/service/Cart.java"]
    assert java.imports == [
        ("file", "src/main/java/com/shop/model/Base.java", ["Base"]),
        ("file", "src/main/java/com/shop/model/Item.java", ["Item"]),
        ("package", "java.util", ["ArrayList", "List"]),
    ]
    assert "src/main/java/com/shop/model/Item.java" in java.deps
    c = _resolved("c")["src/main.c"]
    assert c.imports == [
        ("package", "stdio.h", []),
        ("file", "src/util.h", []),
        ("file", "lib/log.h", []),
    ]
    ruby = _resolved("ruby")["lib/shop/cart.rb"]
    assert ruby.imports == [("file", "lib/shop/item.rb", []), ("package", "json", [])]


def test_inherited_base_outside_the_repository_is_unresolved_base():
    facts = {"A.java": extract("java", b"package p;\nimport q.Base;\nclass A extends Base {}\n")}
    program = GenericProgram(REPO, facts, facts.get, lambda p: None)
    result = program.resolve_file("A.java")
    assert [(u.name, u.external, u.kind) for u in result.unresolved] == [("Base", "q", "base")]
    assert result.edges == []


def test_go_without_go_mod_and_unreadable_files():
    facts = {
        "a/a.go": extract("go", b'package a\nimport "example.com/x/pkg/b"\nfunc A() { b.B() }\n'),
        "pkg/b/b.go": extract("go", b"package b\nfunc B() {}\n"),
    }
    program = GenericProgram(REPO, [*facts, "c/c.go"], facts.get, lambda p: None)
    result = program.resolve_file("a/a.go")
    assert [(e.dst, e.via) for e in result.edges] == [("r:pkg/b/b.go#b.B", "import")]
    empty = program.resolve_file("c/c.go")
    assert (empty.symbols, empty.edges, empty.unresolved) == ([], [], [])


def test_fixture_folders_hold_no_python():
    assert not [p for p in FIXTURES.rglob("*.py")]
    assert {p.name for p in FIXTURES.iterdir()} == set(LANGUAGES)


def _program(files: dict[str, tuple[str, bytes]]) -> GenericProgram:
    facts = {path: extract(language, source) for path, (language, source) in files.items()}
    return GenericProgram(REPO, facts, facts.get, lambda p: None)


def test_builtin_names_are_silent_unless_the_repository_defines_them():
    program = _program(
        {
            "a.kt": (
                "kotlin",
                b'package p\n\nfun error(m: String) {\n}\n\nfun f() {\n  error("x")\n  println("y")\n}\n',
            ),
            "b.go": ("go", b"package p\n\nfunc g(x []int) int {\n\treturn len(x) + h()\n}\n"),
        }
    )
    kotlin = program.resolve_file("a.kt")
    assert [(_strip(e.src), _strip(e.dst)) for e in kotlin.edges] == [("a.kt#p.f", "a.kt#p.error")]
    assert kotlin.unresolved == []
    go = program.resolve_file("b.go")
    assert [u.name for u in go.unresolved] == ["h"]


def test_new_self_and_static_build_the_enclosing_class():
    program = _program(
        {
            "a.php": (
                "php",
                b"<?php\nclass A {\n  static function make() { return new static(); }\n}\n",
            )
        }
    )
    edges = {(_strip(e.src), _strip(e.dst), e.via) for e in program.resolve_file("a.php").edges}
    assert edges == {("a.php#A.make", "a.php#A", "name")}


def test_a_definition_named_like_its_module_is_the_module_symbol():
    program = _program(
        {"main.c": ("c", b"int main(void) { return helper(); }\nint helper(void) { return 0; }\n")}
    )
    result = program.resolve_file("main.c")
    assert [(s.qualname, s.kind) for s in result.symbols] == [
        ("main", "module"),
        ("helper", "function"),
    ]
    assert [(_strip(e.src), _strip(e.dst)) for e in result.edges] == [
        ("main.c#main", "main.c#helper")
    ]


def test_a_comment_after_code_is_no_doc():
    facts = extract(
        "go", b"package p\n\nvar x = 1 // the answer\nfunc F() {}\n\n// G does it.\nfunc G() {}\n"
    )
    assert [(row[1], row[7]) for row in facts["defs"]] == [("F", ""), ("G", "G does it.")]


def test_long_receivers_are_cut():
    chain = b"b" + b".with(1)" * 400
    facts = extract("java", b"class A { void f() { " + chain + b".build(); } }")
    build = next(c for c in facts["calls"] if c[0] == "build")
    assert len(build[1]) <= 120 and build[5].endswith(".build")


def test_php_namespaced_function_calls():
    program = _program(
        {
            "src/App/f.php": ("php", b"<?php\nnamespace App;\nfunction f() {}\n"),
            "src/App/Sub/g.php": ("php", b"<?php\nnamespace App\\Sub;\nfunction g() {}\n"),
            "src/Other/h.php": (
                "php",
                b"<?php\nnamespace Other;\nfunction h() { \\App\\f(); \\App\\Sub\\g(); \\Ext\\x(); }\n",
            ),
        }
    )
    result = program.resolve_file("src/Other/h.php")
    assert {(_strip(e.dst), e.via) for e in result.edges} == {
        ("src/App/f.php#App.f", "name"),
        ("src/App/Sub/g.php#App.Sub.g", "name"),
    }
    assert [u.name for u in result.unresolved] == ["\\Ext\\x"]
