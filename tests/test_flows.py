"""The flow stage (calls through values across files) stays right under incremental runs: an
edit of the caller, of the callee, a line shift, a deleted file, a removed override, a pair
the file's own resolution writes too, and a run that stopped before the stage. Every run is
also compared with a from-scratch index of the same tree (Workspace.index), on both stores."""

from __future__ import annotations

import pytest
from cartograph.index import flows as flow_stage
from cartograph.index import index_repository
from helpers import graph_edges
from indexing_support import REPO, Workspace

FILES = {
    "runner.py": (
        "def run(callback):\n    return callback()\n\n\ndef relay(fn):\n    return run(fn)\n"
    ),
    "handlers.py": "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n",
    "app.py": (
        "from handlers import alpha\n"
        "from runner import relay\n"
        "\n\n"
        "def main():\n"
        "    return relay(alpha)\n"
    ),
    "base.py": (
        "class Pipeline:\n"
        "    def run(self):\n"
        "        return self.step()\n"
        "\n"
        "    def step(self):\n"
        "        return 0\n"
    ),
    "stages.py": (
        "from base import Pipeline\n"
        "\n\n"
        "class Fast(Pipeline):\n"
        "    def step(self):\n"
        "        return 1\n"
    ),
}


@pytest.fixture
def ws(tmp_path, stores):
    return Workspace(tmp_path, stores, FILES)


def derived(ws: Workspace) -> set[tuple[str, str, str]]:
    return {
        (src, dst, via)
        for kind, src, dst, via in graph_edges(ws.store, REPO)
        if kind == "CALLS" and via in ("argument", "dispatch")
    }


def lines_of(ws: Workspace, src: str, dst: str) -> list[int]:
    for item in ws.store.graph.export(REPO):
        if (
            item["type"] == "edge"
            and item["label"] == "CALLS"
            and item["src"].endswith(f"#{src}")
            and item["dst"].endswith(f"#{dst}")
        ):
            return sorted(item["lines"])
    return []


def test_a_callback_passed_through_a_hop_is_called_where_its_parameter_is(ws):
    result = ws.index()
    assert result.derived_edges == 2
    assert derived(ws) == {
        ("runner.run", "handlers.alpha", "argument"),
        ("base.Pipeline.run", "stages.Fast.step", "dispatch"),
    }
    assert lines_of(ws, "runner.run", "handlers.alpha") == [2]


def test_the_caller_passing_another_function_moves_the_edge(ws):
    ws.index()
    ws.write("app.py", FILES["app.py"].replace("alpha", "beta"))
    ws.index(files=["app.py"])
    assert ("runner.run", "handlers.beta", "argument") in derived(ws)
    assert ("runner.run", "handlers.alpha", "argument") not in derived(ws)


def test_a_line_shift_in_the_callee_moves_the_edge_lines(ws):
    ws.index()
    ws.write("runner.py", "# a comment\n# and another\n" + FILES["runner.py"])
    result = ws.index(files=["runner.py"])
    assert result.derived_edges is None  # no flow changed shape: only the file's lines moved
    assert lines_of(ws, "runner.run", "handlers.alpha") == [4]


def test_the_callee_no_longer_calling_its_parameter_drops_the_edge(ws):
    ws.index()
    ws.write("runner.py", FILES["runner.py"].replace("return callback()", "return callback"))
    ws.index(files=["runner.py"])
    assert ("runner.run", "handlers.alpha", "argument") not in derived(ws)


def test_deleting_the_caller_drops_the_edge(ws):
    ws.index()
    ws.remove("app.py")
    ws.index()
    assert derived(ws) == {("base.Pipeline.run", "stages.Fast.step", "dispatch")}


def test_removing_and_restoring_an_override_follows_dispatch(ws):
    ws.index()
    ws.write("stages.py", "from base import Pipeline\n\n\nclass Fast(Pipeline):\n    pass\n")
    ws.index(files=["stages.py"])
    assert ("base.Pipeline.run", "stages.Fast.step", "dispatch") not in derived(ws)
    ws.write("stages.py", FILES["stages.py"])
    ws.index(files=["stages.py"])
    assert ("base.Pipeline.run", "stages.Fast.step", "dispatch") in derived(ws)


def test_a_pair_the_file_writes_itself_is_one_edge_and_the_derived_one_returns_when_it_goes(ws):
    direct = FILES["runner.py"].replace(
        "def run(callback):\n    return callback()\n",
        "from handlers import alpha\n\n\ndef run(callback):\n    alpha()\n    return callback()\n",
    )
    ws.write("runner.py", direct)
    ws.index()
    pairs = [(src, dst) for kind, src, dst, _via in graph_edges(ws.store, REPO) if kind == "CALLS"]
    assert pairs.count(("runner.run", "handlers.alpha")) == 1
    assert ("runner.run", "handlers.alpha", "argument") not in derived(ws)  # the direct one
    ws.write("runner.py", FILES["runner.py"])
    ws.index(files=["runner.py"])
    assert ("runner.run", "handlers.alpha", "argument") in derived(ws)


def test_a_run_stopped_before_the_stage_is_completed_by_the_next(ws, monkeypatch):
    ws.index()
    ws.write("app.py", FILES["app.py"].replace("alpha", "beta"))

    def stop(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("cartograph.index.pipeline.run_flows", stop)
    with pytest.raises(KeyboardInterrupt):
        index_repository(ws.store, ws.root, name=REPO, workers=1, files=["app.py"])
    monkeypatch.setattr("cartograph.index.pipeline.run_flows", flow_stage.run_flows)
    result = ws.index()  # nothing changed on disk since: the mark makes it run the stage
    assert result.derived_edges is not None
    assert ("runner.run", "handlers.beta", "argument") in derived(ws)
    assert ("runner.run", "handlers.alpha", "argument") not in derived(ws)


REGISTRY = {
    "bus.py": (
        "class Bus:\n"
        "    def __init__(self):\n"
        "        self.handlers = {}\n"
        "\n"
        "    def on(self, event, handler):\n"
        "        self.handlers[event] = handler\n"
        "\n"
        "    def emit(self, event):\n"
        "        return self.handlers[event]()\n"
    ),
    "app.py": (
        "from bus import Bus\n"
        "\n\n"
        "def saved():\n"
        "    return 1\n"
        "\n\n"
        "def deleted():\n"
        "    return 2\n"
        "\n\n"
        "BUS = Bus()\n"
        'BUS.on("saved", saved)\n'
    ),
}


def test_a_handler_registered_in_an_instance_attribute_is_called_by_the_emitter(tmp_path, stores):
    ws = Workspace(tmp_path, stores, REGISTRY)
    ws.index()
    assert derived(ws) == {("bus.Bus.emit", "app.saved", "argument")}
    ws.write("app.py", REGISTRY["app.py"] + 'BUS.on("deleted", deleted)\n')
    ws.index(files=["app.py"])
    assert derived(ws) == {
        ("bus.Bus.emit", "app.saved", "argument"),
        ("bus.Bus.emit", "app.deleted", "argument"),
    }
    ws.write("bus.py", REGISTRY["bus.py"].replace("self.handlers[event] = handler", "pass"))
    ws.index(files=["bus.py"])
    assert derived(ws) == set()


def chain(hops: int) -> dict[str, str]:
    """`main` passes `handler` down `hops` functions, one file each; the last calls it."""
    files = {"handlers.py": "def handler():\n    return 1\n"}
    for hop in range(hops):
        call = f"return hop{hop + 1}.step(fn)" if hop + 1 < hops else "return fn()"
        imports = f"import hop{hop + 1}\n\n\n" if hop + 1 < hops else ""
        files[f"hop{hop}.py"] = f"{imports}def step(fn):\n    {call}\n"
    files["app.py"] = "import hop0\nfrom handlers import handler\n\n\ndef main():\n"
    files["app.py"] += "    return hop0.step(handler)\n"
    return files


@pytest.mark.parametrize("hops", [2, flow_stage.FORWARD_PASSES + 3])
def test_a_callback_passed_down_a_chain_is_called_at_its_end(tmp_path, stores, hops):
    # the stage follows forwards hop by hop for FORWARD_PASSES hops, then reads every one
    ws = Workspace(tmp_path, stores, chain(hops))
    ws.index()
    assert derived(ws) == {(f"hop{hops - 1}.step", "handlers.handler", "argument")}


def test_a_parameter_holds_up_to_its_bound_and_past_it_is_left_out():
    """A decorator shared by a whole test suite receives hundreds of functions, each one an
    edge from its wrapper; past `MAX_VALUES` the parameter is left out, never half kept."""
    decorator, wrapper = "r:d.py#d.deco", "r:d.py#d.deco.wrapper"

    def rows(count: int) -> list[list]:
        passed = [["arg", decorator, "f", f"r:t.py#t.test_{i}", "d"] for i in range(count)]
        return [*passed, ["call", decorator, "f", wrapper, 3, "v"]]

    held = flow_stage.derive(lambda: rows(flow_stage.MAX_VALUES))
    assert len(held) == flow_stage.MAX_VALUES
    assert {via for via, _sites in held.values()} == {"wrapped"}
    assert flow_stage.derive(lambda: rows(flow_stage.MAX_VALUES + 1)) == {}
