"""locate, and what it taught search: task text → likely functions on a repository whose bug
reports name behaviour, not functions; on both stores. Every surface (CLI, REST, GraphQL) gives
the same map."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from api_support import serve_in_thread
from cartograph.api.app import Settings, create_app
from cartograph.index import index_repository
from cartograph.query import search
from cartograph.query.locate import locate, locations_text
from cartograph.query.ranking import content_words, stem
from sample_repo import make_sample_repo

FILES = {
    "billing/__init__.py": "",
    "billing/invoices.py": '''
        from billing.money import round_half_even


        class Invoice:
            """An invoice of line items."""

            def __init__(self, lines):
                self.lines = lines

            def total(self):
                return sum(self.line_amount(line) for line in self.lines)

            def line_amount(self, line):
                return apply_discount(line.price * line.quantity, line.discount)


        def apply_discount(amount, percent):
            """The amount less a percentage."""
            if percent > 100:
                raise ValueError("a discount cannot exceed one hundred percent")
            return round_half_even(amount * (100 - percent) / 100)


        def fixed_hook():
            return None
    ''',
    "billing/money.py": '''
        from decimal import ROUND_HALF_EVEN, Decimal


        def round_half_even(value):
            """Banker's rounding to cents."""
            return float(Decimal(str(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))


        def format_currency(value, symbol="EUR"):
            return f"{value:.2f} {symbol}"
    ''',
    "billing/mail.py": '''
        from billing.money import format_currency


        def send_reminder(invoice, address):
            """Mail a payment reminder for an unpaid invoice."""
            body = "Your invoice of " + format_currency(invoice.total()) + " is overdue."
            return deliver(address, "Payment reminder", body)


        def deliver(address, subject, body):
            return (address, subject, body)
    ''',
    "tests/test_invoices.py": """
        from billing.invoices import Invoice, apply_discount


        def test_discount_over_one_hundred_percent_is_refused():
            try:
                apply_discount(10, 120)
            except ValueError:
                pass


        def test_invoice_total_with_discount():
            assert Invoice([]).total() == 0
    """,
}


@pytest.fixture
def billing(tmp_path, stores):
    root = make_sample_repo(tmp_path / "billing", FILES)
    store = stores.open()
    index_repository(store, root, "billing")
    return store, root


def names(found) -> list[str]:
    return [loc.symbol.qualname for loc in found.locations]


def test_a_report_in_plain_words_finds_the_function_by_its_body_and_strings(billing):
    store, _root = billing
    found = locate(store, "Fixed: a discount above one hundred percent was accepted silently")
    assert names(found)[0] == "billing.invoices.apply_discount"  # its message says so
    assert "billing.invoices.fixed_hook" not in names(found)  # "Fixed" names no code
    assert found.confidence >= 0.2
    assert next(t.qualname for t in found.tests) == (
        "tests.test_invoices.test_discount_over_one_hundred_percent_is_refused"
    )
    assert found.files[0].path == "billing/invoices.py"
    text = locations_text(found)
    assert "billing/invoices.py:" in text and "apply_discount" in text
    assert len(text.split()) < 200


def test_stems_reach_other_forms_and_the_title_counts_twice(billing):
    store, _root = billing
    assert stem("reminders") == "reminder" and stem("rounded") == "round"
    found = locate(store, "Overdue reminders are mailed with the wrong currency formatting")
    assert names(found)[0] in {"billing.mail.send_reminder", "billing.money.format_currency"}
    assert {"billing.mail.send_reminder", "billing.money.format_currency"} <= set(names(found))


def test_tests_never_fill_the_map(billing):
    store, _root = billing
    found = locate(store, "invoice total with discount", limit=10)
    assert found.locations and all(
        not loc.symbol.path.startswith("tests/") for loc in found.locations
    )


def test_off_topic_text_gets_an_empty_map_rather_than_a_wrong_one(billing):
    store, _root = billing
    for text in ("thanks, looks good, ship it", "What is the capital of France?", "continue"):
        found = locate(store, text)
        assert found.locations == [], text
    found = locate(store, "Explain quantum computing in simple terms")
    assert (not found.locations and "no confident location" in locations_text(found)) or (
        "no location matches" in locations_text(found)
    )
    assert locate(store, "", limit=5).locations == []
    assert content_words("Fix the bug when it fails") == ["fails"]


def test_search_reads_bodies_drops_stop_words_and_ranks_tests_last(billing):
    store, _root = billing
    hits = [h.symbol.qualname for h in search(store, "exceed one hundred percent").hits]
    assert hits[0] == "billing.invoices.apply_discount"  # only its string says it
    fixed = [h.symbol.qualname for h in search(store, "fixed discount").hits]
    assert fixed[0] == "billing.invoices.apply_discount"  # not fixed_hook: "fixed" is a stop word
    ranked = [h.symbol.path for h in search(store, "discount", kinds=["function"]).hits]
    library = [i for i, p in enumerate(ranked) if not p.startswith("tests/")]
    tests = [i for i, p in enumerate(ranked) if p.startswith("tests/")]
    assert library and tests and max(library) < min(tests)
    asked = [h.symbol.path for h in search(store, "test discount", kinds=["function"]).hits]
    assert asked[0].startswith("tests/")  # the query asks for tests


def test_every_surface_gives_the_same_map(billing, tmp_path):
    store, _root = billing
    text = "a discount above one hundred percent was accepted"
    expected = names(locate(store, text))
    done = subprocess.run(
        [str(Path(sys.executable).parent / "cartograph"), "--store", store.url, "locate", text,
         "--json"], capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert [loc["symbol"]["qualname"] for loc in json.loads(done.stdout)["locations"]] == expected
    settings = Settings(store_url=store.url, broker_url=None, data_dir=tmp_path / "data")
    with serve_in_thread(create_app(settings)) as url:
        rest = httpx.post(f"{url}/api/v1/locate", json={"text": text}).json()
        assert [loc["symbol"]["qualname"] for loc in rest["locations"]] == expected
        plain = httpx.post(f"{url}/api/v1/locate", json={"text": text},
                           headers={"Accept": "text/plain"})  # fmt: skip
        assert plain.headers["content-type"].startswith("text/plain")
        assert "likely locations" in plain.text
        query = f'{{ locate(text: "{text}") {{ confidence locations {{ symbol {{ qualname }} why }} }} }}'
        graphql = httpx.post(f"{url}/graphql", json={"query": query}).json()["data"]["locate"]
        assert [loc["symbol"]["qualname"] for loc in graphql["locations"]] == expected
        refused = httpx.post(f"{url}/api/v1/locate", json={"text": text, "limit": 11})
        assert refused.status_code == 422


TRACEBACK = """Reminder mail crashes for some customers

Traceback (most recent call last):
  File "/srv/app/venv/lib/python3.11/site-packages/billing/mail.py", line 7, in send_reminder
    body = "Your invoice of " + format_currency(invoice.total()) + " is overdue."
  File "/srv/app/venv/lib/python3.11/site-packages/billing/money.py", line 10, in format_currency
    return f"{value:.2f} {symbol}"
TypeError: unsupported format string passed to NoneType.__format__
"""


def test_the_frames_of_a_quoted_traceback_lead_the_map(billing):
    """The functions a traceback runs through are named by where they are, not by the
    report's words: the innermost frame first, its caller next."""
    store, _root = billing
    found = locate(store, TRACEBACK)
    assert names(found)[:2] == ["billing.money.format_currency", "billing.mail.send_reminder"]
    assert found.files[0].path == "billing/money.py"


def test_a_long_log_is_read_not_refused_and_its_code_lines_count(billing, tmp_path):
    """A pasted log far over the read limit: its start is read, and past it the lines that
    name code (the traceback at its end) still lead the map; REST takes it too."""
    store, _root = billing
    noise = "".join(f"INFO worker heartbeat {n} ok\n" for n in range(3_000))
    text = "Reminders fail after the nightly run\n" + noise + TRACEBACK
    assert len(text) > 60_000
    found = locate(store, text)
    assert names(found)[0] == "billing.money.format_currency"
    settings = Settings(store_url=store.url, broker_url=None, data_dir=tmp_path / "data")
    with serve_in_thread(create_app(settings)) as url:
        answer = httpx.post(f"{url}/api/v1/locate", json={"text": text})
        assert answer.status_code == 200, answer.text
        assert answer.json()["locations"][0]["symbol"]["qualname"] == (
            "billing.money.format_currency"
        )


def test_a_text_that_names_a_function_is_answered_though_its_prose_is_not_in_the_code(billing):
    """A report whose words are mostly prose the code never holds still gets its map when it
    names a function as code and that function leads: the name is the evidence."""
    store, _root = billing
    text = (
        "Since yesterday's release, Japanese customers see yen amounts with two decimals. "
        "I think `format_currency` is where it goes wrong; which file should I open?"
    )
    found = locate(store, text)
    assert names(found)[:1] == ["billing.money.format_currency"]
    assert found.confidence >= 0.5


LINTER = {
    "lint/__init__.py": "",
    "lint/names.py": '''
        class NameChecker:
            """Names of classes, functions, attributes and variables."""

            def visit_assign(self, node):
                if not node.target.islower():
                    self.report("invalid-name", node)

            def visit_classdef(self, node):
                """Attributes assigned in the class body are class attributes."""
                for attribute in node.attributes:
                    self.attribute_names.append(attribute.name)

            def report(self, message, node):
                self.found.append((message, node.line))
    ''',
    "lint/install.py": '''
        def install_options(argv):
            """The options of an install: sources only when asked."""
            options = {"binary": True}
            if "--no-binary" in argv:
                options["binary"] = False
            return options


        def install_names(packages):
            """The names of the packages to install."""
            return [package.name for package in packages]
    ''',
}


def test_a_message_or_an_option_the_text_names_finds_the_functions_that_hold_it(tmp_path, stores):
    """A name no function bears — a message (`invalid-name`), an option (`--no-binary`) — leads
    to the few functions whose bodies hold it, though other functions hold more of the text's
    words."""
    store = stores.open()
    index_repository(store, make_sample_repo(tmp_path / "lint", LINTER), "lint")
    text = "False positive for invalid-name on class attributes assigned in a loop of the class"
    assert names(locate(store, text))[0] == "lint.names.NameChecker.visit_assign"
    text = "--no-binary is ignored: binary packages are installed anyway"
    assert names(locate(store, text))[0] == "lint.install.install_options"


CLI = {
    "greet/__init__.py": "",
    "greet/cli.py": """
        from greet.options import option, route


        @option("--shout", help="upper-case the greeting")
        def greet(name):
            return "Hello " + name


        @route("/farewell/<name>")
        def farewell(name):
            return "Goodbye " + name
    """,
    "greet/options.py": """
        def option(flag, help=""):
            return lambda function: function


        def route(path):
            return lambda function: function
    """,
}


def test_a_functions_decorators_are_searched_with_its_body(tmp_path, stores):
    """What a decorator says of its function — an option's flag, a route's path — finds the
    function, in search and in locate."""
    store = stores.open()
    index_repository(store, make_sample_repo(tmp_path / "greet", CLI), "greet")
    assert [h.symbol.qualname for h in search(store, "shout").hits][:1] == ["greet.cli.greet"]
    hits = search(store, "farewell route", kinds=["function"]).hits
    assert [h.symbol.qualname for h in hits][:1] == ["greet.cli.farewell"]
    found = locate(store, "The --shout option no longer upper-cases the greeting")
    assert names(found)[0] == "greet.cli.greet"
