"""The answer cache (cartograph.query.answers): a repeated read is answered from the cache, and
never after a write that changes it, nor after the file it judged changed on disk; on both
stores, through the catalogue's operations as every surface calls them."""

from __future__ import annotations

import random
import textwrap

import httpx
import pytest
from api_support import serve_in_thread
from cartograph.agents import sessions
from cartograph.api.app import Settings, create_app
from cartograph.auth import create_token
from cartograph.index import index_repository
from cartograph.operations import Services, operation
from cartograph.query.answers import ANSWERS
from cartograph.render import to_data
from sample_repo import git, make_sample_repo

READS = [
    ("context", {"symbol": "shop.models.price_of", "repo": "shop"}),
    ("callers", {"symbol": "shop.models.price_of", "repo": "shop"}),
    ("callees", {"symbol": "shop.orders.place_order", "repo": "shop"}),
    ("trace", {"symbol": "shop.orders.place_order", "repo": "shop"}),
    ("search", {"query": "price", "repo": "shop"}),
    ("files", {"repo": "shop"}),
    ("stats", {"repo": "shop"}),
    ("dead-code", {"repo": "shop"}),
]


def asked(store, name: str, values: dict):
    """The answer as a surface gets it (through the cache) and as the library computes it now."""
    op = operation(name)
    through_cache = op.run(Services(store), values)
    bound = op.bind(values)
    arguments = {p.arg or p.name: bound[p.name] for p in op.params if not p.to_services}
    fresh = op.function(store, **arguments)
    return to_data(through_cache), to_data(fresh)


@pytest.fixture(autouse=True)
def empty_cache():
    ANSWERS.clear()
    yield
    ANSWERS.clear()


def test_repeated_reads_are_answered_from_the_cache(stores, tmp_path):
    store = stores.open()
    index_repository(store, make_sample_repo(tmp_path / "shop"), name="shop")
    for name, values in READS:
        first, _ = asked(store, name, values)
        hits = ANSWERS.hits
        again, fresh = asked(store, name, values)
        assert ANSWERS.hits == hits + 1, f"{name} was computed again"
        assert again == first == fresh


def test_a_write_is_never_followed_by_a_stale_answer(stores, tmp_path):
    """Random edits, each indexed, each followed by every read: the answer through the cache
    always equals the one computed afresh; a second store object (another process's view of
    the same store) writes half of them."""
    root = make_sample_repo(tmp_path / "shop")
    store, other = stores.open(), stores.open()
    index_repository(store, root, name="shop")
    rng = random.Random(7)
    callers_of_price = set()
    for step in range(8):
        for name, values in READS:
            asked(store, name, values)  # cached at this generation
        caller = f"quote_{step}"
        edit = rng.choice(["add", "remove"]) if callers_of_price else "add"
        target = root / "shop" / f"{caller if edit == 'add' else sorted(callers_of_price)[0]}.py"
        if edit == "add":
            target.write_text(
                textwrap.dedent(f"""
                from shop.models import price_of


                def {caller}(sku):
                    return price_of(sku) * {step + 2}
                """).lstrip()
            )
            callers_of_price.add(caller)
        else:
            target.unlink()
            callers_of_price.discard(target.stem)
        index_repository(other if step % 2 else store, root, name="shop")
        for name, values in READS:
            through_cache, fresh = asked(store, name, values)
            assert through_cache == fresh, f"{name} after step {step} ({edit})"
        items = asked(store, *READS[1])[0]["items"]
        names = {item["symbol"]["qualname"] for item in items}
        assert {n for n in names if ".quote_" in n} == {f"shop.{c}.{c}" for c in callers_of_price}


def test_a_file_changed_on_disk_is_marked_in_a_repeated_answer(stores, tmp_path):
    root = make_sample_repo(tmp_path / "shop")
    store = stores.open()
    index_repository(store, root, name="shop")
    name, values = READS[0]
    assert asked(store, name, values)[0]["envelope"]["stale"] == []
    models = root / "shop" / "models.py"
    models.write_text(models.read_text() + "\n\ndef added():\n    return 1\n")
    through_cache, fresh = asked(store, name, values)
    assert (
        through_cache["envelope"]["stale"] == fresh["envelope"]["stale"] == ["shop:shop/models.py"]
    )


def test_a_console_script_declared_since_changes_the_dead_code_answer(stores, tmp_path):
    """Dead code reads the entry points of the manifests the index read: indexing an edited
    one changes the cached answer."""
    store = stores.open()
    root = make_sample_repo(tmp_path / "shop")
    index_repository(store, root, name="shop")
    dead = {
        i["symbol"]["qualname"] for i in asked(store, "dead-code", {"repo": "shop"})[0]["items"]
    }
    assert "shop.models.unused_helper" in dead
    (root / "pyproject.toml").write_text(
        '[project]\nname = "shop"\n\n[project.scripts]\nhelp-shop = "shop.models:unused_helper"\n'
    )
    git(root, "add", "pyproject.toml")
    git(root, "commit", "-q", "-m", "a script")
    index_repository(store, root, name="shop")
    again, fresh = asked(store, "dead-code", {"repo": "shop"})
    assert again == fresh
    assert "shop.models.unused_helper" not in {i["symbol"]["qualname"] for i in again["items"]}


def test_the_impact_between_two_refs_is_kept_until_a_ref_names_another_commit(stores, tmp_path):
    store = stores.open()
    root = make_sample_repo(tmp_path / "shop")
    models = root / "shop/models.py"

    def commit(old: str, new: str, message: str) -> None:
        models.write_text(models.read_text().replace(old, new, 1))
        git(root, "commit", "-q", "-am", message)

    commit("def price_of(sku: str)", "def price_of(sku: str, currency: str)", "price_of: currency")
    index_repository(store, root, name="shop")
    change = {"repo": "shop", "base": "HEAD~1", "head": "HEAD"}

    def impact() -> dict:
        return to_data(operation("impact").run(Services(store), change))

    first = impact()
    assert first["verdict"] == "breaking"
    misses = ANSWERS.misses
    assert impact() == first and ANSWERS.misses == misses, "the same commits were compared again"
    commit("def unused_helper():", "def unused_helper(flag=False):", "unused_helper: a flag")
    moved = impact()
    assert [c["qualname"] for c in moved["changed"]] == ["shop.models.unused_helper"]
    assert moved["verdict"] != "breaking"
    ANSWERS.clear()
    assert impact() == moved


def test_agents_at_work_keep_the_cache_and_a_lesson_empties_it(stores, tmp_path):
    """Sessions and claims cannot change a cached answer (no miss after them); a lesson can
    (a symbol's context lists the lessons about it)."""
    store = stores.open()
    index_repository(store, make_sample_repo(tmp_path / "shop"), name="shop")
    name, values = READS[0]
    asked(store, name, values)
    session = sessions.start_session(store, "agent", "a task")
    sessions.claim(store, session.id, "shop", "shop/models.py")
    misses = ANSWERS.misses
    asked(store, name, values)
    assert ANSWERS.misses == misses
    sessions.remember(store, session.id, "price_of is cached upstream", ["shop/models.py"])
    through_cache, fresh = asked(store, name, values)
    assert ANSWERS.misses == misses + 1
    assert through_cache == fresh
    assert [lesson["text"] for lesson in through_cache["lessons"]] == [
        "price_of is cached upstream"
    ]


def test_a_token_revoked_while_the_server_runs_is_refused_at_once(stores, tmp_path):
    """The server looks tokens up through the cache; revoking one (from another process's
    store) is seen by the next request, and a request's answers are read at the generation its
    token was checked at."""
    store = stores.open()
    index_repository(store, make_sample_repo(tmp_path / "shop"), name="shop")
    token = create_token(store, "leaving", ["read"])[0]
    settings = Settings(
        store_url=stores.url("graph"), data_dir=tmp_path / "data", require_tokens=True
    )
    headers = {"Authorization": f"Bearer {token}"}
    with serve_in_thread(create_app(settings)) as url:
        for _ in range(2):  # the second is answered from the cache, the token's record too
            answered = httpx.get(f"{url}/api/v1/symbols/shop.models.price_of", headers=headers)
            assert answered.status_code == 200
        stores.open().tokens.revoke_token("leaving", "2026-12-02T00:00:00+00:00")
        refused = httpx.get(f"{url}/api/v1/symbols/shop.models.price_of", headers=headers)
        assert refused.status_code == 401 and "revoked" in refused.json()["detail"]
