"""A sync job indexes first and mines history afterwards, letting the pushes that arrive while
it mines in between two batches, and cutting a batch short when a push waits: a push waits for
part of a batch of history, never for all of it.
The history it ends with is the one a fresh index of the same tree mines, also when such a push
renames or adds files (the history mined so far is then mined again). Both stores."""

from __future__ import annotations

import pytest
from cartograph import jobs
from cartograph.history import mine
from cartograph.jobs import MemoryJobState, run_job
from cartograph.sync import Mirror
from cartograph.tracking import add_tracked
from history_support import fresh_view, view
from push_support import Remote, assert_graph_matches_tree

FILES = {
    "shop/__init__.py": "",
    "shop/prices.py": "def net(x):\n    return x / 1.2\n",
    "shop/cart.py": "from shop.prices import net\n\n\ndef total(items):\n    return sum(items)\n",
    "shop/tax.py": "def vat():\n    return 0.2\n",
}
EDITS = 10  # commits after the first one, each appending a function to two modules


def _append(text: str, name: str) -> str:
    return f"{text}\n\ndef {name}():\n    return {len(text)}\n"


@pytest.fixture
def remote_with_history(tmp_path, stores, monkeypatch):
    """A tracked remote with 11 commits, and mining in batches of 2 commits."""
    monkeypatch.setattr(mine, "BATCH_COMMITS", 2)
    remote = Remote(tmp_path / "hosted", FILES)
    texts = dict(FILES)
    for number in range(EDITS):
        changed = ("shop/prices.py", "shop/cart.py") if number % 2 else ("shop/tax.py",)
        for path in changed:
            texts[path] = _append(texts[path], f"f{number}")
        remote.commit(f"edit {number}", write={path: texts[path] for path in changed})
    remote.push()
    store = stores.open()
    add_tracked(store, "shop", remote.url, "main")
    return remote, store, tmp_path / "data"


def _record_syncs(monkeypatch, events: list) -> None:
    """Each sync the job runs appends ("sync", sha) to `events`."""
    real_sync = jobs.sync_to

    def sync_to(store, tracked, sha, data_dir, workers=None, history=True):
        events.append(("sync", sha))
        return real_sync(store, tracked, sha, data_dir, workers, history=history)

    monkeypatch.setattr(jobs, "sync_to", sync_to)


def _record_the_job(monkeypatch, remote, state, push_during_mining):
    """What the job does, in order: ("sync", sha) for each sync, "batch" for each batch of
    history written; the first batch written is followed by a push (`push_during_mining`
    makes its commit), announced as a webhook would."""
    events: list = []
    real_flush = mine._flush

    def flush(store, repo, batch, result):
        if not batch.empty():
            events.append("batch")
        real_flush(store, repo, batch, result)
        if events.count("batch") == 1:
            push_during_mining(remote)
            state.announce("shop", remote.push())

    monkeypatch.setattr(mine, "_flush", flush)
    _record_syncs(monkeypatch, events)
    return events


def _everything(work):
    files = sorted(str(p.relative_to(work)) for p in work.rglob("*.py"))
    return files, ["shop.prices.net", "shop.tax.vat", "shop.cart.total"]


def test_a_push_that_arrives_while_history_is_mined_waits_for_one_batch(
    remote_with_history, monkeypatch
):
    remote, store, data = remote_with_history
    state = MemoryJobState()

    def edit(remote):
        text = (Mirror(data, "shop", remote.url).work / "shop/tax.py").read_text()
        remote.commit("during mining", write={"shop/tax.py": _append(text, "late")})

    events = _record_the_job(monkeypatch, remote, state, edit)
    first = remote.head()
    state.announce("shop", first)
    outcome = run_job(store, "shop", state, data, workers=1)

    pushed = remote.head()
    assert outcome.status == "synced" and pushed != first
    assert events[:3] == [("sync", first), "batch", ("sync", pushed)]  # not after all batches
    assert events.count("batch") == 7  # the 11 commits in 6 batches, then the pushed one
    row = store.repos.get_repo("shop")
    assert (row.indexed_sha, row.mined_sha) == (pushed, pushed)
    work = Mirror(data, "shop", remote.url).work
    assert_graph_matches_tree(store, "shop", work)
    assert view(store, "shop", *_everything(work)) == fresh_view(
        store, work, "shop", *_everything(work)
    )


def test_a_push_that_renames_files_while_history_is_mined_has_it_mined_again(
    remote_with_history, monkeypatch
):
    remote, store, data = remote_with_history
    state = MemoryJobState()

    def reshape(remote):
        remote.commit(
            "reshape",
            rename={"shop/prices.py": "shop/pricing.py"},
            write={"shop/cart.py": FILES["shop/cart.py"].replace("prices", "pricing")},
        )

    events = _record_the_job(monkeypatch, remote, state, reshape)
    state.announce("shop", remote.head())
    assert run_job(store, "shop", state, data, workers=1).status == "synced"

    pushed = remote.head()
    row = store.repos.get_repo("shop")
    assert (row.indexed_sha, row.mined_sha) == (pushed, pushed)
    # the first run stopped after the push; the history was mined again, from the start
    assert events.count("batch") == 1 + 6
    work = Mirror(data, "shop", remote.url).work
    files, symbols = _everything(work)
    assert "shop/pricing.py" in files
    mined = view(store, "shop", files, ["shop.pricing.net", *symbols[1:]])
    assert len(mined["shop/pricing.py"]["history"]) == 1 + EDITS // 2 + 1  # its past follows it
    assert mined == fresh_view(store, work, "shop", files, ["shop.pricing.net", *symbols[1:]])


def test_a_push_that_arrives_in_the_middle_of_a_batch_cuts_it_short(
    remote_with_history, monkeypatch
):
    """Batches of 1,000 commits: the whole history fits one. A push announced while the third
    commit is read goes in at once (the batch so far is written), not after the whole of it."""
    remote, store, data = remote_with_history
    monkeypatch.setattr(mine, "BATCH_COMMITS", 1000)
    monkeypatch.setattr(mine, "WAIT_CHECK_SECONDS", 0.0)
    state = MemoryJobState()
    events: list = []
    real_flush, real_read = mine._flush, mine.read_commits

    def flush(store, repo, batch, result):
        if not batch.empty():
            events.append(("batch", len(batch.commits)))
        real_flush(store, repo, batch, result)

    def read_commits(*args, **kwargs):
        for number, commit in enumerate(real_read(*args, **kwargs)):
            if number == 2:
                text = (Mirror(data, "shop", remote.url).work / "shop/tax.py").read_text()
                remote.commit("during mining", write={"shop/tax.py": _append(text, "late")})
                state.announce("shop", remote.push())
            yield commit

    monkeypatch.setattr(mine, "_flush", flush)
    _record_syncs(monkeypatch, events)
    monkeypatch.setattr(mine, "read_commits", read_commits)
    first = remote.head()
    state.announce("shop", first)
    assert run_job(store, "shop", state, data, workers=1).status == "synced"

    pushed = remote.head()
    assert events[0] == ("sync", first)
    assert events[1][0] == "batch" and events[1][1] <= 3  # cut short: not the 11 commits
    assert events[2] == ("sync", pushed)
    row = store.repos.get_repo("shop")
    assert (row.indexed_sha, row.mined_sha) == (pushed, pushed)
    work = Mirror(data, "shop", remote.url).work
    assert view(store, "shop", *_everything(work)) == fresh_view(
        store, work, "shop", *_everything(work)
    )


def test_a_push_that_arrives_while_mining_reads_where_to_start_goes_first(
    remote_with_history, monkeypatch
):
    """Mining from scratch first reads every symbol's lines (a second or more on a large
    repository), a few files at a time: a push announced meanwhile is indexed before the rest
    is read, and the reading starts again on the pushed files."""
    remote, store, data = remote_with_history
    monkeypatch.setattr(mine, "SPAN_FILES", 1)
    monkeypatch.setattr(mine, "WAIT_CHECK_SECONDS", 0.0)
    state = MemoryJobState()
    events: list = []
    real_spans = mine._Spans
    first = remote.head()

    class Spans(real_spans):
        def __init__(self, items):
            super().__init__(items)
            events.append("spans")
            if events.count("spans") == 1 and events[-2:-1] == [("sync", first)]:
                text = (Mirror(data, "shop", remote.url).work / "shop/tax.py").read_text()
                remote.commit("while starting", write={"shop/tax.py": _append(text, "late")})
                state.announce("shop", remote.push())

    monkeypatch.setattr(mine, "_Spans", Spans)
    _record_syncs(monkeypatch, events)
    state.announce("shop", first)
    assert run_job(store, "shop", state, data, workers=1).status == "synced"

    pushed = remote.head()
    assert events[:3] == [("sync", first), "spans", ("sync", pushed)]  # not after every file
    with_symbols = store.graph.symbol_spans("shop", mine.SYMBOL_KINDS)
    assert events[3:] == ["spans"] * len(with_symbols)  # then read again, every file
    row = store.repos.get_repo("shop")
    assert (row.indexed_sha, row.mined_sha) == (pushed, pushed)
    work = Mirror(data, "shop", remote.url).work
    assert view(store, "shop", *_everything(work)) == fresh_view(
        store, work, "shop", *_everything(work)
    )
