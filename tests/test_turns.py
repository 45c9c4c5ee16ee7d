"""The heavy questions (impact, the tests of an edit, locate) take turns in a process: at most
`HEAVY_AT_ONCE` compute at once, the others wait, and the time an impact waits for its turn is
not taken from its time budget."""

from __future__ import annotations

import difflib
import threading

from cartograph import turns
from cartograph.impact.report import Budget, impact_of
from cartograph.impact.source import change_from_patch
from cartograph.index import index_repository
from cartograph.store import open_store
from indexing_support import commit_all, git_init, write_tree

FILES = {
    "shop/__init__.py": "",
    "shop/prices.py": "def price(cents):\n    return cents / 100\n",
    "tests/test_prices.py": (
        "from shop.prices import price\n\n\ndef test_price():\n    assert price(100) == 1\n"
    ),
}


def _hold_turns(count: int = turns.HEAVY_AT_ONCE) -> tuple[list[threading.Thread], threading.Event]:
    """Threads holding `count` of the process's turns until the event is set."""
    held = threading.Barrier(count + 1)
    release = threading.Event()

    def hold() -> None:
        with turns.heavy_turn():
            held.wait()
            release.wait()

    holders = [threading.Thread(target=hold) for _ in range(count)]
    for holder in holders:
        holder.start()
    held.wait()  # they hold their turns
    return holders, release


def test_no_more_heavy_questions_than_the_turns_compute_at_once():
    holders, release = _hold_turns()
    entered = threading.Event()

    def ask() -> None:
        with turns.heavy_turn():
            entered.set()

    asker = threading.Thread(target=ask)
    asker.start()
    assert not entered.wait(0.2)  # waits while every turn is held
    release.set()
    assert entered.wait(30)
    for thread in (*holders, asker):
        thread.join()


def test_a_thread_holding_a_turn_is_not_made_to_wait_for_a_second():
    holders, release = _hold_turns(turns.HEAVY_AT_ONCE - 1)  # one turn left: this thread's
    nested = []

    def ask_twice() -> None:
        with turns.heavy_turn(), turns.heavy_turn() as waited:
            nested.append(waited)

    asker = threading.Thread(target=ask_twice, daemon=True)
    asker.start()
    asker.join(30)  # a second turn asked for would wait for ever
    release.set()
    for holder in holders:
        holder.join()
    assert nested == [0.0]


def test_the_time_an_impact_waits_for_its_turn_is_not_taken_from_its_budget(tmp_path):
    root = git_init(tmp_path / "shop")
    write_tree(root, FILES)
    commit_all(root, "start")
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    index_repository(store, root, name="shop", workers=1, history=False)
    old = FILES["shop/prices.py"]
    new = old.replace("/ 100", "/ 100.0")
    patch = "".join(
        difflib.unified_diff(
            old.splitlines(True), new.splitlines(True), "a/shop/prices.py", "b/shop/prices.py"
        )
    )
    change = change_from_patch(store, "shop", patch)
    # a clock that stands still until the impact asks for its turn, then jumps past the budget
    now = [0.0]
    asked = threading.Event()
    reads = [0]

    def clock() -> float:
        reads[0] += 1
        if reads[0] == 2:  # the first read makes the budget, the second asks for the turn
            asked.set()
        return now[0]

    holders, release = _hold_turns()
    budget = Budget(seconds=30, clock=clock)
    answers = []
    asker = threading.Thread(target=lambda: answers.append(impact_of(store, change, budget=budget)))
    asker.start()
    assert asked.wait(30)
    now[0] = 1000.0  # waited far longer than the budget's 30 s
    release.set()
    for thread in (*holders, asker):
        thread.join()
    (answer,) = answers
    assert not any(line.startswith("PARTIAL") for line in answer.summary)
    assert [t.node for t in answer.tests] == ["tests/test_prices.py::test_price"]
