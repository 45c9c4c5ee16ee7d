"""The dashboard at /ui, driven in headless Chromium against a running `cartograph serve` with a
real indexed repository: each page loads and shows the names and numbers the graph holds, links
lead from a symbol to its caller's page and back, the search box works from the keyboard, the
token form lets a good token in and refuses a bad one, axe finds no serious accessibility
violation, and no page logs an error."""

from __future__ import annotations

import difflib
import re
import shlex
from pathlib import Path
from urllib.parse import quote

import pytest
from browser_support import Server, axe_violations, cartograph, format_violations, serve
from cartograph.agents import sessions as agents
from cartograph.model import Review
from cartograph.store import open_store
from indexing_support import write_tree
from playwright.sync_api import Page, expect
from sample_repo import git, make_sample_repo
from test_services import CLIENTS, FASTAPI, SERVICES_CONFIG

READY = "body[data-state=ready], body[data-state=error]"
PRICE_OF = "shop:shop/models.py#shop.models.price_of"


def _commit(root: Path, who: str, message: str, edits: dict[str, tuple[str, str]]) -> None:
    """Replace text in files and commit it as `who`."""
    for path, (old, new) in edits.items():
        target = root / path
        text = target.read_text()
        assert old in text, (path, old)
        target.write_text(text.replace(old, new))
    git(root, "-c", f"user.name={who}", "-c", f"user.email={who.lower()}@example.com",
        "commit", "-q", "-am", message)  # fmt: skip


def _shop_with_history(root: Path) -> Path:
    """The sample shop with a history: models and orders change together three times (a
    co-change cluster, hot spots with owners), and a last commit that gives price_of a
    required parameter (a breaking change for the Change page)."""
    make_sample_repo(root)
    for n in range(3):
        _commit(root, "Ada", f"prices {n}", {
            "shop/models.py": (f"return 9.99{'9' * n}", f"return 9.99{'9' * (n + 1)}"),
            "shop/orders.py": ("return service.pay(cart)", "return service.pay(cart)  # paid")
            if n == 0 else (f"# paid{'!' * (n - 1)}", f"# paid{'!' * n}"),
        })  # fmt: skip
    _commit(root, "Grace", "price_of takes a currency", {
        "shop/models.py": ("def price_of(sku: str) -> float:", "def price_of(sku: str, currency: str) -> float:"),
    })  # fmt: skip
    return root


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("dashboard")
    shop = _shop_with_history(folder / "shop")
    with serve(folder / "server", repos=[shop]) as server:
        store = open_store(server.store)
        session = agents.start_session(store, "alice-laptop", "round prices down")
        agents.claim(store, session.id, "shop", "shop/models.py", "edit")
        agents.record_read(store, session.id, "shop", "shop/orders.py")
        agents.remember(store, session.id, "run pytest tests/ before pushing", ["shop/"])
        store.close()
        yield server


def _open(page: Page, server: Server, route: str) -> None:
    page.goto(f"{server.url}/ui/{route}")
    page.wait_for_selector(READY)
    assert page.locator("body").get_attribute("data-state") == "ready", page.inner_text("main")


def _main(page: Page) -> str:
    return page.inner_text("main")


def _no_serious_violations(page: Page) -> None:
    violations = axe_violations(page)
    assert violations == [], format_violations(violations)


def test_repositories_lists_each_repository_with_its_freshness_and_counts(
    page, page_errors, dashboard
):
    _open(page, dashboard, "#/repos")
    row = page.locator("tbody tr", has=page.get_by_role("link", name="shop", exact=True))
    cells = row.locator("td").all_inner_texts()
    assert cells[0] == "shop"
    assert cells[1] == "indexed"  # not tracked: no lag to show
    assert "python 5" in cells[9]  # languages and files
    assert cells[10] == "5"
    assert page.title() == "Repositories · Cartograph"
    _no_serious_violations(page)
    assert page_errors == []


def test_repository_shows_packages_hot_spots_clusters_dead_code(page, page_errors, dashboard):
    _open(page, dashboard, "#/repo/shop")
    text = _main(page)
    assert page.get_by_role("heading", level=1).inner_text() == "shop"
    assert "5 files" in text
    spots = page.locator("section[aria-labelledby=hot-spots] tbody tr").all_inner_texts()
    # models.py: 5 commits (the first, three price changes, the signature) times 4 calls in
    # (Cart() and cart.add from orders, cart.total from payments, price_of from Cart.total)
    assert spots[0].split("\t")[:4] == ["shop/models.py", "5", "4", "20"]
    assert "Ada" in spots[0] and "Grace" in spots[0]
    clusters = page.locator("section[aria-labelledby=co-change-clusters]").inner_text()
    assert "2 files" in clusters and "shop/models.py" in clusters and "shop/orders.py" in clusters
    dead = page.locator("section[aria-labelledby=dead-code]")
    expect(dead.get_by_role("link", name="shop.models.unused_helper")).to_be_visible()
    # a package's imports open on demand
    package = page.locator("details", has=page.locator("summary code", has_text="tests"))
    expect(package.locator("li")).to_be_hidden()
    package.locator("summary").click()
    expect(package.locator("li")).to_have_text("shop (1 file imports)")
    _no_serious_violations(page)
    assert page_errors == []


def test_symbol_shows_callers_source_callees_and_links_to_the_caller(page, page_errors, dashboard):
    _open(page, dashboard, f"#/symbol/{quote(PRICE_OF)}")
    assert page.get_by_role("heading", level=1).inner_text() == "shop.models.price_of"
    source = page.get_by_label("Source of shop.models.price_of").inner_text()
    assert "def price_of(sku: str, currency: str) -> float:" in source
    assert "return 9.99" in source
    callers = page.locator(".column", has=page.get_by_role("heading", name="Callers (1)"))
    expect(callers.get_by_role("link", name="shop.models.Cart.total")).to_be_visible()
    assert "via" in callers.inner_text()
    history = page.locator("section[aria-labelledby=history]").inner_text()
    assert "price_of takes a currency" in history and "Grace" in history
    owners = page.locator("section[aria-labelledby=owners]").inner_text()
    assert "Grace" in owners
    graph = page.get_by_role("group", name=re.compile("Call graph of shop.models.price_of"))
    expect(graph).to_be_visible()
    _no_serious_violations(page)

    # symbol → its caller's page, then through the call graph back to the symbol
    callers.get_by_role("link", name="shop.models.Cart.total").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("shop.models.Cart.total")
    page.wait_for_selector(READY)
    callees = page.locator(".column", has=page.get_by_role("heading", name=re.compile("Callees")))
    expect(callees.get_by_role("link", name="shop.models.price_of")).to_be_visible()
    callers_of_total = page.locator(".column", has=page.get_by_role("heading", name="Callers (1)"))
    expect(
        callers_of_total.get_by_role("link", name="shop.payments.PaymentService.pay")
    ).to_be_visible()
    page.locator("svg.graph a", has_text="price_of").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("shop.models.price_of")
    assert page.url.endswith(f"#/symbol/{quote(PRICE_OF, safe='')}")
    assert page_errors == []


def test_change_shows_what_the_last_commit_breaks_and_the_tests_to_run(
    page, page_errors, dashboard
):
    # from the repository page: two refs to compare
    _open(page, dashboard, "#/repo/shop")
    page.get_by_label("Base").fill("HEAD~1")
    page.get_by_role("button", name="Show its impact").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Change HEAD~1…HEAD of shop")
    page.wait_for_selector(READY)
    assert page.url.endswith("#/change/shop?base=HEAD%7E1&head=HEAD")
    text = _main(page)
    assert "breaking" in text
    breaks = page.locator("section[aria-labelledby=will-break]")
    expect(breaks.get_by_role("link", name="shop.models.Cart.total")).to_be_visible()
    changed = page.locator("section[aria-labelledby=changed]").inner_text()
    assert "shop.models.price_of" in changed
    tests = page.locator("section[aria-labelledby=tests-to-run]").inner_text()
    assert "tests/test_orders.py" in tests
    owners = page.locator("section[aria-labelledby=owners-to-ask]").inner_text()
    assert "Ada" in owners or "Grace" in owners
    treemap = page.get_by_role("group", name=re.compile("Packages: 1 changed"))
    expect(treemap.locator(".cell.changed")).to_have_count(1)
    _no_serious_violations(page)
    assert page_errors == []


def test_a_pasted_diff_shows_what_it_would_break(page, page_errors, dashboard):
    """A diff against the indexed commit, pasted on the repository's page: `Cart.add` gains a
    required parameter, which breaks its caller `place_order`."""
    store = open_store(dashboard.store)
    root = Path(store.repos.get_repo("shop").root)
    store.close()
    indexed = git(root, "show", "HEAD:shop/models.py") + "\n"
    edited = indexed.replace(
        "def add(self, sku: str, qty: int = 1)", "def add(self, sku: str, qty: int)"
    )
    assert edited != indexed
    diff = "".join(difflib.unified_diff(
        indexed.splitlines(keepends=True), edited.splitlines(keepends=True),
        "a/shop/models.py", "b/shop/models.py",
    ))  # fmt: skip
    _open(page, dashboard, "#/repo/shop")
    page.get_by_label("Or paste a diff").fill(diff)
    page.get_by_role("button", name="Show the diff's impact").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("A pasted diff against shop")
    page.wait_for_selector(READY)
    assert page.url.endswith("#/change/shop?patch=pasted")
    assert "shop.models.Cart.add" in page.locator("section[aria-labelledby=changed]").inner_text()
    breaks = page.locator("section[aria-labelledby=will-break]")
    expect(breaks.get_by_role("link", name="shop.orders.place_order")).to_be_visible()
    _no_serious_violations(page)
    assert page_errors == []


def test_team_shows_the_live_session_its_claim_its_reads_and_the_lessons(
    page, page_errors, dashboard
):
    _open(page, dashboard, "#/team")
    text = _main(page)
    assert "1 live sessions · 1 claimed files" in text
    assert "alice-laptop" in text and "round prices down" in text
    assert "shop:shop/models.py" in text  # claimed
    assert "shop:shop/orders.py" in text  # read
    assert "run pytest tests/ before pushing" in text
    _no_serious_violations(page)
    assert page_errors == []


def test_search_from_the_keyboard_opens_a_symbol(page, page_errors, dashboard):
    _open(page, dashboard, "#/repos")
    page.keyboard.press("/")
    expect(page.get_by_label(re.compile("Search symbols"))).to_be_focused()
    page.keyboard.type("place_ord")
    option = page.get_by_role("option", name=re.compile("shop.orders.place_order"))
    expect(option).to_be_visible()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_have_text("shop.orders.place_order")
    page.wait_for_selector(READY)
    assert page_errors == []


def test_an_unknown_address_says_so(page, page_errors, dashboard):
    _open(page, dashboard, "#/nowhere")
    assert "No page at #/nowhere" in _main(page)
    expect(page.get_by_role("link", name="Repositories").last).to_be_visible()
    assert page_errors == []


def test_an_unknown_symbol_is_an_error_on_the_page(page, dashboard):
    page.goto(f"{dashboard.url}/ui/#/symbol/{quote('shop:shop/models.py#shop.models.gone')}")
    page.wait_for_selector(READY)
    assert page.locator("body").get_attribute("data-state") == "error"
    assert "shop.models.gone" in page.get_by_role("alert").inner_text()


def test_the_token_form_lets_a_good_token_in_and_refuses_a_bad_one(
    page, page_errors, cartograph_server, tmp_path
):
    server = cartograph_server(
        env={"CARTOGRAPH_REQUIRE_TOKENS": "1"}, repos=[make_sample_repo(tmp_path / "shop")]
    )
    page.goto(f"{server.url}/ui/#/repos")
    dialog = page.get_by_role("dialog", name="Sign in")
    expect(dialog).to_be_visible()
    _no_serious_violations(page)
    # the dialog's hint is a command that works: run as it is shown, it prints the token
    hint = shlex.split(dialog.locator("code").inner_text())
    assert hint[:3] == ["cartograph", "token", "create"], hint
    issued = cartograph(*hint[1:], env=server.env).stdout
    good = re.search(r"^(cgt_\S+)$", issued, re.M)
    assert good, issued
    page.get_by_label("Token").fill("not-a-token")
    page.get_by_role("button", name="Sign in").click()
    expect(dialog.get_by_role("alert")).to_have_text("That token was refused.")
    page.get_by_label("Token").fill(good.group(1))
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector(READY)
    expect(page.get_by_role("link", name="shop", exact=True)).to_be_visible()
    expect(dialog).to_be_hidden()
    # the browser logs each refused request (401) as a console error: those and only those
    assert page_errors and all("401" in e for e in page_errors), page_errors


def test_a_pull_request_whose_report_failed_shows_the_stored_error(
    page, page_errors, cartograph_server, tmp_path
):
    server = cartograph_server(repos=[make_sample_repo(tmp_path / "shop")])
    store = open_store(server.store)
    failed = "git fetch origin: could not read from remote repository"
    store.impact.put_review(
        Review("shop", 7, "a" * 40, base_ref="main", title="Round prices",
               computed_at="2026-05-01T10:00:00+00:00", error=failed)
    )  # fmt: skip
    store.impact.put_review(Review("shop", 8, "b" * 40, base_ref="main", title="Pending"))
    store.close()
    _open(page, server, "#/change/shop/7")
    expect(page.get_by_role("heading", level=1)).to_have_text("Pull request #7 of shop")
    expect(page.get_by_role("alert")).to_have_text(
        f"Its impact report could not be computed: {failed}"
    )
    assert "a push to its branch" in _main(page)
    assert "Something went wrong" not in _main(page)
    _open(page, server, "#/change/shop/8")
    expect(page.get_by_role("status")).to_contain_text("being computed")
    _no_serious_violations(page)
    assert page_errors == []


def test_the_dashboard_loads_nothing_from_elsewhere(page, dashboard):
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    _open(page, dashboard, f"#/symbol/{quote(PRICE_OF)}")
    assert requested and all(
        u.startswith(dashboard.url) or u.startswith("data:") for u in requested
    )
    policy = page.request.get(f"{dashboard.url}/ui/").headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy


def test_the_service_map_shows_where_requests_go_and_leads_to_the_handlers_callers(
    page, page_errors, cartograph_server, tmp_path
):
    client = write_tree(tmp_path / "client", {**CLIENTS, ".cartograph.toml": SERVICES_CONFIG})
    users = write_tree(tmp_path / "users", FASTAPI)
    server = cartograph_server(repos=[client, users])  # the client first: users matches it
    _open(page, server, "#/repo/client")
    services = page.locator("section[aria-labelledby=service-map]")
    graph = services.get_by_role("group", name="Service map of client")
    expect(graph.get_by_role("link", name="users")).to_be_visible()
    assert "unmatched: api.weather.example" in (graph.text_content() or "")
    sent = services.locator("table", has_text="Requests it sends").inner_text()
    assert "GET users:8000/api/users/{}" in sent and "GET /api/users/{user_id} (http)" in sent
    _no_serious_violations(page)

    graph.get_by_role("link", name="users").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("users")
    page.wait_for_selector(READY)
    # the service's map shows who calls it: the client, with its 8 matched requests
    called = page.get_by_role("group", name="Service map of users")
    expect(called.get_by_role("link", name="client")).to_be_visible()
    assert "1 repository calls users" in (called.locator("title").first.text_content() or "")
    assert "8" in (called.text_content() or "")
    served = page.locator("table", has_text="Routes it serves")
    row = served.locator("tr", has_text="GET /api/users/{user_id}")
    assert row.locator("td").last.inner_text() == "2"  # fetch_user and Users.lookup reach it
    row.get_by_role("link", name="users.routers.accounts.get_user").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("users.routers.accounts.get_user")
    callers = page.locator(".column", has=page.get_by_role("heading", name=re.compile("Callers")))
    expect(callers.get_by_role("link", name="client.api.fetch_user")).to_be_visible()
    assert "through GET /api/users/{user_id}" in callers.inner_text()
    assert page_errors == []


# ------------------------------------------------------------ a src layout, a real pull request

RECEIPT = "storefront:src/storefront/utils.py#storefront.utils.render_receipt"


def _receipt(title: str) -> str:
    """A 45-line function: longer than a screen's worth of source pane."""
    fields = "".join(
        f"    out.append(str(order.get({n!r}, '')).ljust(width))  # field {n}\n" for n in range(41)
    )
    return (
        "def render_receipt(order, width=40):\n"
        '    """The receipt of an order, one line per field."""\n'
        f"    out = [{title!r}]\n{fields}"
        "    return '\\n'.join(out)\n"
    )


STOREFRONT = {
    "pyproject.toml": '[project]\nname = "storefront"\nversion = "1.0"\n',
    "src/storefront/__init__.py": "",
    "src/storefront/utils.py": _receipt("") + "\n\ndef slug(text):\n    return text.lower()\n",
    "src/storefront/notifications/__init__.py": "",
    "src/storefront/notifications/email.py": (
        "from storefront.utils import render_receipt\n\n\n"
        "def send_receipt(order):\n    return render_receipt(order)\n"
    ),
    "src/storefront/payment_integrations/__init__.py": "",
    "src/storefront/payment_integrations/stripe_provider.py": "def charge(n):\n    return n > 0\n",
    "src/storefront/payment_integrations/paypal_provider.py": "def charge(n):\n    return n >= 0\n",
    "src/storefront/catalogue/__init__.py": "",
    **{
        f"src/storefront/catalogue/item{n:02d}.py": f"def item{n}():\n    return {n}\n"
        for n in range(45)
    },
    "tests/test_utils.py": (
        "from storefront.utils import render_receipt\n\n\n"
        "def test_render_receipt():\n    assert render_receipt({})\n"
    ),
    "tests/test_catalogue.py": (
        "from storefront.catalogue.item01 import item1\n\n\n"
        "def test_item():\n    assert item1() == 1\n"
    ),
}


@pytest.fixture(scope="module")
def storefront(tmp_path_factory: pytest.TempPathFactory):
    """A src-layout repository (files under src/, packages named without it) whose last commit
    edits one function of src/storefront/utils.py: a pull request's change."""
    folder = tmp_path_factory.mktemp("storefront")
    root = make_sample_repo(folder / "storefront", STOREFRONT)
    _commit(root, "Ada", "receipts start with a title", {
        "src/storefront/utils.py": ("out = ['']", "out = ['RECEIPT']"),
    })  # fmt: skip
    with serve(folder / "server", repos=[root]) as server:
        yield server


def _cells(page: Page) -> dict[str, dict]:
    """The treemap's cells: package → its state, accessible name, visible label, and whether
    the label fits inside the cell as drawn."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll("svg.treemap .cell")].map((c) => {
          const text = c.querySelector("text");
          const rect = c.querySelector("rect").getBBox();
          const box = text ? text.getBBox() : null;
          const title = c.querySelector("title").textContent;
          const lit = ["changed", "reached", "tests"].find((k) => c.classList.contains(k));
          return [title.split(": ")[0], {
            state: lit || "untouched",
            name: c.getAttribute("aria-label") || "",
            title,
            label: text ? text.textContent : "",
            fits: !box || (box.x >= rect.x && box.x + box.width <= rect.x + rect.width),
          }];
        }))"""
    )


def test_the_change_lights_the_changed_package_what_it_reaches_and_its_tests(
    page, page_errors, storefront
):
    """src/storefront/utils.py changes: its package (storefront.utils, though its path starts
    with src/) is lit as changed, the package of its caller as reached, the tests' package as
    tests; the rest is untouched."""
    _open(page, storefront, "#/change/storefront?base=HEAD~1&head=HEAD")
    expect(page.locator("svg.treemap")).to_be_visible()
    cells = _cells(page)
    assert cells["storefront.utils"]["state"] == "changed", cells
    assert cells["storefront.notifications"]["state"] == "reached", cells
    assert cells["tests.test_utils"]["state"] == "tests", cells
    for untouched in (
        "storefront.catalogue",
        "storefront.payment_integrations",
        "tests.test_catalogue",
    ):
        assert cells[untouched]["state"] == "untouched", (untouched, cells[untouched])
    assert cells["storefront.utils"]["name"] == "storefront.utils: 1 file, changed"
    assert "reached: 1 symbol, 1 hop away" in cells["storefront.notifications"]["name"]
    assert "1 test to run" in cells["tests.test_utils"]["name"]
    legend = page.locator("section[aria-labelledby=where-it-lands] .legend").inner_text()
    assert legend.split() == ["changed", "reached", "tests", "to", "run", "untouched"]
    _no_serious_violations(page)
    assert page_errors == []


def test_treemap_labels_are_whole_names_or_their_last_parts(page, page_errors, storefront):
    """A package name too long for its cell keeps its last parts (…payment_integrations), never
    a cut after a dot; every label fits its cell; the full name is the cell's accessible name
    and its tooltip."""
    _open(page, storefront, "#/change/storefront?base=HEAD~1&head=HEAD")
    expect(page.locator("svg.treemap")).to_be_visible()
    cells = _cells(page)
    for package, cell in cells.items():
        label = cell["label"]
        assert label, f"{package} has no label"
        if label != package:
            assert label.startswith("…") and package.endswith(label[1:]), (package, label)
            assert package[-len(label[1:]) - 1] in "./", (package, label)  # whole parts
        assert cell["fits"], f"the label {label!r} of {package} runs out of its cell"
    for package, cell in cells.items():
        assert cell["name"].startswith(f"{package}: ") and cell["title"] == cell["name"]
    # the long name in a narrow cell (3 files of 55) is elided from the front
    assert cells["storefront.payment_integrations"]["label"] == "…payment_integrations"
    assert page_errors == []


def test_the_source_pane_shows_the_whole_symbol(page, page_errors, storefront):
    """A 45-line function: the pane's last line number is the symbol's end line, and that line
    is inside what the pane shows (no scroll box cutting it off)."""
    store = open_store(storefront.store)
    end = next(
        s.end_line
        for s in store.graph.symbols_in_files("storefront", ["src/storefront/utils.py"])[
            "src/storefront/utils.py"
        ]
        if s.name == "render_receipt"
    )
    store.close()
    _open(page, storefront, f"#/symbol/{quote(RECEIPT)}")
    pane = page.get_by_label("Source of storefront.utils.render_receipt")
    numbers = pane.locator(".no")
    expect(numbers.first).to_have_text("1")
    assert numbers.last.inner_text() == str(end) == "45"
    shown = pane.bounding_box()
    last = numbers.last.bounding_box()
    assert shown and last
    assert last["y"] + last["height"] <= shown["y"] + shown["height"] + 0.5, (shown, last)
    assert "return '\\n'.join(out)" in pane.inner_text()
    assert page_errors == []
