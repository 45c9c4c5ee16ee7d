"""The agent A/B harness (benchmark.agent_ab) end to end with a fake agent that replays
recorded streams (tests/agent_streams/), the stream parsers, the statistics, the shipped task
files, and the offline proxy (benchmark.agent_proxy) on a small repository with a real-looking
fix. No network, no model: every repository is made here in a temporary folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from benchmark.agent_ab.cli import main as agent_ab
from benchmark.agent_ab.runner import names_file
from benchmark.agent_ab.sources import Sources
from benchmark.agent_ab.stats import interval, t_critical
from benchmark.agent_ab.streams import parse_stream, shell_effects
from benchmark.agent_ab.tasks import Repository, TaskError, load_tasks
from benchmark.agent_proxy import identifiers, run_proxy

STREAMS = Path(__file__).parent / "agent_streams"
FAKE_AGENT = STREAMS / "fake_agent.py"
SHIPPED_TASKS = Path(__file__).parent.parent / "benchmark" / "agent_tasks"

BUGGY = "return sum(price for _name, price, _quantity in self.items)"
FIXED = "return sum(price * quantity for _name, price, quantity in self.items)"
FILES = {
    "shop/__init__.py": '"""A small shop."""\n',
    "shop/cart.py": textwrap.dedent(
        f'''\
        """A shopping cart."""

        from shop.pricing import price_with_tax


        class Cart:
            def __init__(self):
                self.items = []

            def add_item(self, name, price, quantity=1):
                self.items.append((name, price, quantity))

            def total(self):
                """The sum of the cart's items before tax."""
                {BUGGY}

            def total_with_tax(self, rate):
                return price_with_tax(self.total(), rate)
        '''
    ),
    "shop/pricing.py": textwrap.dedent(
        '''\
        """Prices: tax and discounts."""


        def price_with_tax(amount, rate):
            return round(amount * (1 + rate), 2)


        def discount(amount, percent):
            return amount * (100 - percent) / 100
        '''
    ),
    "shop/checkout.py": textwrap.dedent(
        '''\
        """Checking a cart out."""

        from shop.cart import Cart


        def checkout(cart: Cart, rate=0.2):
            total = cart.total_with_tax(rate)
            return {"total": total, "items": len(cart.items)}
        '''
    ),
    "shop/report.py": '"""Sales reports: the total of each day and of each month."""\n\n\n'
    + "\n\n".join(
        textwrap.dedent(
            f'''\
            def total_of_day_{day}(orders):
                """The total of the orders of day {day}: each order's total, summed."""
                total = 0
                for order in orders:
                    total += order["total"]
                return total
            '''
        )
        for day in range(1, 16)
    ),
    "docs/notes.md": "# Notes\n\nThe cart total is shown on the checkout page; the report "
    "total is computed at night.\n",
    "tests/test_cart.py": textwrap.dedent(
        """\
        from shop.cart import Cart


        def test_add_item():
            cart = Cart()
            cart.add_item("pen", 2.0)
            assert cart.items == [("pen", 2.0, 1)]
        """
    ),
}
VALIDATION_TEST = textwrap.dedent(
    """\
    from shop.cart import Cart


    def test_total_counts_the_quantity():
        cart = Cart()
        cart.add_item("pen", 2.0, quantity=3)
        cart.add_item("pad", 1.5)
        assert cart.total() == 7.5
    """
)


def _git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "ada@example.com",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "ada@example.com",
    }
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture(scope="module")
def shop_repo(tmp_path_factory) -> tuple[Path, str, str]:
    """A git repository: the shop at the commit before the fix, then the fix (Cart.total
    counts the quantity, with its test). (path, before, fix)."""
    repo = tmp_path_factory.mktemp("repos") / "shop"
    repo.mkdir()
    _git(repo, "init", "--quiet", "--initial-branch=main")
    for path, content in FILES.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(content)
    _git(repo, "add", ".")
    _git(repo, "commit", "--quiet", "-m", "A shop with a cart")
    before = _git(repo, "rev-parse", "HEAD")
    cart = repo / "shop" / "cart.py"
    cart.write_text(cart.read_text().replace(BUGGY, FIXED))
    (repo / "tests" / "test_total.py").write_text(VALIDATION_TEST)
    _git(repo, "add", ".")
    _git(repo, "commit", "--quiet", "-m", "Cart.total counts the quantity (#12)")
    fix = _git(repo, "rev-parse", "HEAD")
    return repo, before, fix


def _task_file(folder: Path, repo: Path, before: str, *tasks: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "shop.yaml"
    entries = [{"commit": before, "expected_files": ["shop/cart.py"], **task} for task in tasks]
    path.write_text(yaml.safe_dump({"repository": {"path": str(repo)}, "tasks": entries}))
    return path


FIND_TOTAL = {
    "id": "find-total",
    "kind": "investigation",
    "prompt": "`Cart.total` ignores the quantity: a cart with three pens at 2.00 totals "
    "2.00. Which file and function compute the total? Do not edit anything.",
    "expected_symbols": ["Cart.total"],
}
FIX_TOTAL = {
    "id": "fix-total",
    "kind": "edit",
    "prompt": "`Cart.total` ignores the quantity of each item. Please fix it.",
    "validation": {
        "command": "{python} -m pytest -q -p no:cacheprovider checks/test_total.py",
        "env": {"PYTHONPATH": "."},
        "timeout": 120,
        "files": {"checks/test_total.py": VALIDATION_TEST},
    },
}


def _fake_agent_env(monkeypatch, tmp_path: Path, streams: str) -> Path:
    log = tmp_path / "fake-agent.log"
    monkeypatch.setenv("FAKE_AGENT_STREAMS", str(STREAMS / streams))
    monkeypatch.setenv("FAKE_AGENT_LOG", str(log))
    return log


def _runs(out: Path) -> tuple[dict, dict]:
    metrics = json.loads((out / "metrics.json").read_text())
    runs = {(r["task"], r["arm"], r["repeat"]): r for r in metrics["runs"]}
    return metrics, runs


def test_claude_adapter_with_a_fake_binary(shop_repo, tmp_path, monkeypatch):
    repo, before, _fix = shop_repo
    tasks = _task_file(tmp_path / "tasks", repo, before, FIND_TOTAL, FIX_TOTAL)
    log = _fake_agent_env(monkeypatch, tmp_path, "claude")
    out = tmp_path / "out"
    code = agent_ab(
        ["--agent", "claude", "--agent-command", f"{sys.executable} {FAKE_AGENT}",
         "--tasks", str(tasks), "--repeats", "2", "--out", str(out), "--timeout", "60",
         "--work", str(tmp_path / "work")]
    )  # fmt: skip
    assert code == 0
    metrics, runs = _runs(out)
    assert len(metrics["runs"]) == 8
    # the arms alternate which goes first
    order = [(r["task"], r["repeat"], r["arm"]) for r in metrics["runs"]]
    assert order[:4] == [
        ("find-total", 1, "baseline"),
        ("find-total", 1, "cartograph"),
        ("find-total", 2, "cartograph"),
        ("find-total", 2, "baseline"),
    ]

    baseline = runs[("find-total", "baseline", 1)]
    assert baseline["status"] == "ok"
    assert baseline["metrics"]["tokens"] == {
        "input": 24,
        "output": 610,
        "cache_read": 52000,
        "cache_creation": 8100,
        "total": 60734,
    }
    assert baseline["metrics"]["turns"] == 6
    assert baseline["metrics"]["cost_usd"] == pytest.approx(0.0412)
    assert baseline["metrics"]["tool_calls"] == {"Bash": 1, "Glob": 1, "Grep": 1, "Read": 2}
    assert baseline["metrics"]["grep_calls"] == 3  # Grep, Glob and a shell grep
    assert baseline["metrics"]["read_calls"] == 2
    assert baseline["metrics"]["files_read"] == ["shop/cart.py", "shop/checkout.py"]
    assert baseline["metrics"]["cartograph_calls_total"] == 0
    assert baseline["expected"] == {"shop/cart.py": True}
    assert baseline["success"] is True
    assert baseline["commit"] == before

    cartograph = runs[("find-total", "cartograph", 1)]
    assert cartograph["metrics"]["tokens"]["total"] == 12 + 300 + 21000 + 6400
    assert cartograph["metrics"]["cartograph_calls"] == {"locate": 1}
    assert cartograph["metrics"]["tool_calls"] == {"Read": 1, "mcp__cartograph__locate": 1}
    assert cartograph["metrics"]["grep_calls"] == 0
    assert cartograph["setup_seconds"] > 0

    fixed = runs[("fix-total", "cartograph", 1)]
    assert fixed["files_changed"] == ["shop/cart.py"]  # not .mcp.json nor .claude/
    assert fixed["metrics"]["files_edited"] == ["shop/cart.py"]
    assert fixed["validation"]["passed"] is True
    assert fixed["success"] is True
    wrong = runs[("fix-total", "baseline", 2)]  # this replay makes a wrong fix
    assert wrong["files_changed"] == ["shop/cart.py"]
    assert wrong["expected"] == {"shop/cart.py": True}
    assert wrong["validation"]["passed"] is False
    assert wrong["success"] is False
    assert runs[("fix-total", "baseline", 1)]["validation"]["passed"] is True
    validation_log = out / wrong["validation"]["output"]
    assert "1 failed" in validation_log.read_text()

    # paired deltas: cartograph - baseline
    find = metrics["deltas"]["tasks"]["find-total"]
    assert find["pairs"] == 2
    assert find["total_tokens"]["mean"] == 27712 - 60734
    assert find["turns"]["mean"] == 3 - 6
    assert find["grep_calls"]["mean"] == -3
    fix = metrics["deltas"]["tasks"]["fix-total"]
    assert fix["total_tokens"]["mean"] == pytest.approx(37520 - (79930 + 100640) / 2)
    assert fix["total_tokens"]["low"] < fix["total_tokens"]["mean"] < fix["total_tokens"]["high"]
    assert fix["success"]["mean"] == pytest.approx(0.5)
    overall = metrics["deltas"]["overall"]
    assert overall["pairs"] == 4
    assert overall["success"]["baseline_mean"] == pytest.approx(0.75)
    assert overall["success"]["cartograph_mean"] == pytest.approx(1.0)

    summary = (out / "summary.md").read_text()
    assert "# Agent A/B: claude, 2 repeat(s) per arm" in summary
    assert "Student t-interval" in summary
    assert (
        "| total tokens | 75,510 | 32,616 | -42,894 | [-65,473, -20,314] | -57 % | 4 |" in summary
    )
    assert "| success rate | 75 % | 100 % | +25 pts | [-55 pts, +100 pts] |" in summary
    assert "| baseline | 4 | 4 | 0 | 0 | 0 | 1/2 | 3/4 |" in summary
    assert "| find-total | investigation | 2 | 60,734 → 27,712, Δ -33,022" in summary

    assert (out / "streams" / "find-total" / "baseline-1.jsonl").read_text().count("\n") == 13
    assert (out / "streams" / "fix-total" / "cartograph-2.stderr.txt").exists()
    assert not list((tmp_path / "work").iterdir())  # scratch trees removed

    seen = [json.loads(line) for line in log.read_text().splitlines()]
    with_graph = [s for s in seen if s["arm"] == "cartograph"]
    without = [s for s in seen if s["arm"] == "baseline"]
    assert all(s["mcp_json"] and s["claude_settings"] and s["store_exists"] for s in with_graph)
    assert all(
        "--mcp-config" in s["argv"] and "--strict-mcp-config" in s["argv"] for s in with_graph
    )
    assert not any(s["mcp_json"] or s["claude_settings"] or s["store"] for s in without)
    assert all(
        "--mcp-config" not in s["argv"] and "--strict-mcp-config" in s["argv"] for s in without
    )
    assert all(
        s["argv"][:2] == ["-p", FIND_TOTAL["prompt"] + "\n"]
        for s in seen
        if s["task"] == "find-total"
    )


def test_codex_stream_and_a_failing_run(shop_repo, tmp_path, monkeypatch):
    repo, before, _fix = shop_repo
    user_codex = tmp_path / "user-codex"
    user_codex.mkdir()
    (user_codex / "config.toml").write_text(
        'model = "gpt-5"\n# cartograph: begin\n[mcp_servers.cartograph]\ncommand = "old"\n'
        "# cartograph: end\n"
    )
    monkeypatch.setenv("CODEX_HOME", str(user_codex))
    broken = {**FIND_TOTAL, "id": "broken"}
    tasks = _task_file(tmp_path / "tasks", repo, before, FIND_TOTAL, broken)
    log = _fake_agent_env(monkeypatch, tmp_path, "codex")
    out = tmp_path / "out"
    code = agent_ab(
        ["--agent", "command", "--agent-command", f"{sys.executable} {FAKE_AGENT}",
         "--stream-format", "codex", "--tasks", str(tasks), "--repeats", "1",
         "--out", str(out), "--timeout", "60"]
    )  # fmt: skip
    assert code == 0
    metrics, runs = _runs(out)

    baseline = runs[("find-total", "baseline", 1)]
    assert baseline["metrics"]["tokens"] == {
        "input": 6000,
        "output": 700,
        "cache_read": 15000,
        "cache_creation": 0,
        "total": 21700,
    }
    assert baseline["metrics"]["tool_calls"] == {"shell": 2}
    assert baseline["metrics"]["grep_calls"] == 1
    assert baseline["metrics"]["files_read"] == ["shop/cart.py"]
    assert baseline["metrics"]["turns"] == 3
    assert baseline["success"] is True
    cartograph = runs[("find-total", "cartograph", 1)]
    assert cartograph["metrics"]["tool_calls"] == {"mcp__cartograph__locate": 1}
    assert cartograph["metrics"]["cartograph_calls"] == {"locate": 1}
    assert cartograph["metrics"]["tokens"]["total"] == 3000 + 6000 + 250

    for arm in ("baseline", "cartograph"):
        failed = runs[("broken", arm, 1)]
        assert failed["status"] == "failed"
        assert failed["exit_code"] == 1
        assert (
            failed["metrics"]["error"]
            == "stream disconnected before completion: rate limit reached"
        )
        assert failed["success"] is False
        assert "ERROR: stream disconnected" in (out / failed["stderr"]).read_text()
    summary = (out / "summary.md").read_text()
    assert "## Runs that did not end ok" in summary
    assert "- broken baseline #1: failed (exit 1) — stream disconnected" in summary
    assert metrics["deltas"]["tasks"]["broken"]["total_tokens"]["n"] == 1

    seen = {(s["task"], s["arm"]): s for s in map(json.loads, log.read_text().splitlines())}
    with_graph, without = seen[("find-total", "cartograph")], seen[("find-total", "baseline")]
    assert "[mcp_servers.cartograph]" in with_graph["codex_config"]
    assert 'model = "gpt-5"' in with_graph["codex_config"]
    assert with_graph["agents_md"] is True
    assert "cartograph" not in without["codex_config"]  # the user's old section left out
    assert without["agents_md"] is False
    assert "cartograph" in (user_codex / "config.toml").read_text()  # the user's file untouched


def test_a_run_past_its_timeout_is_recorded_and_the_session_goes_on(
    shop_repo, tmp_path, monkeypatch
):
    repo, before, _fix = shop_repo
    slow = {**FIND_TOTAL, "id": "slow"}
    tasks = _task_file(tmp_path / "tasks", repo, before, slow)
    _fake_agent_env(monkeypatch, tmp_path, "claude")
    out = tmp_path / "out"
    code = agent_ab(
        ["--agent", "command", "--agent-command", f"{sys.executable} {FAKE_AGENT}",
         "--stream-format", "claude", "--hooks-agent", "none", "--tasks", str(tasks),
         "--repeats", "1", "--out", str(out), "--timeout", "1"]
    )  # fmt: skip
    assert code == 0
    metrics, runs = _runs(out)
    for arm in ("baseline", "cartograph"):
        run = runs[("slow", arm, 1)]
        assert run["status"] == "timeout"
        assert run["exit_code"] is None
        assert 1 <= run["wall_seconds"] < 30  # the fake sleeps 60 s
        assert run["metrics"]["stream_finished"] is False
        assert run["success"] is False
    assert metrics["deltas"]["tasks"]["slow"]["total_tokens"]["n"] == 0  # no finished pair
    assert metrics["deltas"]["tasks"]["slow"]["success"]["n"] == 1
    summary = (out / "summary.md").read_text()
    assert "| baseline | 1 | 0 | 0 | 1 | 0 |" in summary
    assert "- slow cartograph #1: timeout" in summary


def test_check_validations_runs_them_on_the_commit_and_on_the_fix(shop_repo, tmp_path, capsys):
    repo, before, fix = shop_repo
    tasks = _task_file(tmp_path / "tasks", repo, before, {**FIX_TOTAL, "fix": fix})
    code = agent_ab(
        ["--agent", "claude", "--check-validations", "--tasks", str(tasks), "--out",
         str(tmp_path / "out")]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "fix-total on its before tree: fails (as it should)" in printed
    assert "fix-total on its fix tree: passes (as it should)" in printed
    assert "2 validation checks as they should be" in printed


def test_the_scratch_tree_holds_no_history_past_the_commit(shop_repo, tmp_path):
    repo, before, fix = shop_repo
    tree = tmp_path / "shop"
    assert Sources().checkout(Repository(path=str(repo)), before[:10], tree) == before
    assert _git(tree, "rev-list", "--all") == before
    assert _git(tree, "branch", "--list") == "* agent-ab"
    assert _git(tree, "status", "--porcelain") == ""
    assert BUGGY in (tree / "shop" / "cart.py").read_text()
    assert _git(repo, "rev-parse", "HEAD") == fix  # the source is left as it was


def test_stream_parsers():
    # a Claude stream cut off before its result: the messages' usage, each message once
    cut = [
        json.dumps({"type": "assistant", "message": {"id": "m1", "content": [
            {"type": "tool_use", "name": "Read", "input": {"file_path": "/t/a.py"}}],
            "usage": {"input_tokens": 5, "output_tokens": 7, "cache_read_input_tokens": 100}}}),
        json.dumps({"type": "assistant", "message": {"id": "m1", "content": [
            {"type": "tool_use", "name": "Edit", "input": {"file_path": "/t/b.py"}}],
            "usage": {"input_tokens": 5, "output_tokens": 7, "cache_read_input_tokens": 100}}}),
        "not json",
    ]  # fmt: skip
    metrics = parse_stream("claude", cut, Path("/t"))
    assert (metrics.input_tokens, metrics.output_tokens, metrics.cache_read_tokens) == (5, 7, 100)
    assert metrics.turns == 1
    assert metrics.finished is False
    assert metrics.unreadable_lines == 1
    assert (metrics.files_read, metrics.files_edited) == (["a.py"], ["b.py"])

    gemini = [
        json.dumps({"type": "init", "session_id": "s", "model": "gemini-2.5-pro"}),
        json.dumps({"type": "tool_use", "tool_name": "search_file_content", "tool_id": "1",
                    "parameters": {"pattern": "total"}}),
        json.dumps({"type": "tool_result", "tool_id": "1", "status": "success", "output": "x"}),
        json.dumps({"type": "tool_use", "tool_name": "locate", "tool_id": "2",
                    "parameters": {"text": "total"}}),
        json.dumps({"type": "tool_use", "tool_name": "read_file", "tool_id": "3",
                    "parameters": {"absolute_path": "/t/shop/cart.py"}}),
        json.dumps({"type": "tool_result", "tool_id": "3", "status": "success", "output": "x"}),
        json.dumps({"type": "message", "role": "assistant", "content": "In shop/", "delta": True}),
        json.dumps({"type": "message", "role": "assistant", "content": "cart.py.", "delta": True}),
        json.dumps({"type": "result", "status": "success", "stats": {
            "total_tokens": 1300, "input_tokens": 1000, "output_tokens": 300, "cached": 400,
            "input": 600, "duration_ms": 900, "tool_calls": 3}}),
    ]  # fmt: skip
    metrics = parse_stream("gemini", gemini, Path("/t"))
    assert (metrics.input_tokens, metrics.cache_read_tokens, metrics.output_tokens) == (
        600,
        400,
        300,
    )
    assert metrics.turns == 3
    assert metrics.grep_calls == 1
    assert metrics.cartograph_calls == {"locate": 1}
    assert metrics.files_read == ["shop/cart.py"]
    assert metrics.final_answer == "In shop/cart.py."

    effects = shell_effects("bash -lc \"sed -n '1,40p' src/a.py && rg -n foo | head -n 5\"")
    assert (effects.searched, effects.read) == (True, ["src/a.py"])
    assert shell_effects("sed -i 's/a/b/' src/a.py").edited == ["src/a.py"]
    assert shell_effects("cartograph locate 'the cart total'").cartograph == ["locate"]


def test_interval_and_naming_rules():
    stats = interval([1.0, 2.0, 3.0])
    assert stats["mean"] == 2.0
    assert stats["high"] - stats["mean"] == pytest.approx(4.303 / 3**0.5)
    assert interval([5.0])["low"] is None
    assert t_critical(35) == t_critical(30)

    files = ["src/flask/ctx.py", "src/flask/app.py", "tests/app.py"]
    assert names_file("see src/flask/ctx.py:120", "src/flask/ctx.py", files)
    assert names_file("in flask/ctx.py, after_this_request", "src/flask/ctx.py", files)
    assert names_file("it is in `ctx.py`", "src/flask/ctx.py", files)  # the only ctx.py
    assert not names_file("it is in app.py", "src/flask/app.py", files)  # two app.py
    assert not names_file("see myctx.py", "src/flask/ctx.py", files)


def test_task_files_are_checked(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"repository": {"git": "https://github.com/a/b.git"},
                                   "tasks": [{"id": "x", "kind": "edit", "prompt": "p",
                                              "commit": "abc"}]}))  # fmt: skip
    with pytest.raises(TaskError, match="expected_files"):
        load_tasks([bad])
    bad.write_text(yaml.safe_dump({"tasks": [{"id": "x", "kind": "edit", "prompt": "p",
                                              "commit": "abc", "expected_files": ["a.py"]}]}))  # fmt: skip
    with pytest.raises(TaskError, match="repository"):
        load_tasks([bad])


def test_the_shipped_tasks_are_well_formed():
    tasks = load_tasks([SHIPPED_TASKS])
    kinds = [t.kind for t in tasks]
    assert kinds.count("investigation") >= 10
    assert kinds.count("edit") >= 5
    assert len({t.repository.git for t in tasks}) >= 2
    for task in tasks:
        assert task.repository.git and task.repository.git.startswith("https://github.com/")
        assert task.commit and len(task.commit) == 40
        assert task.fix and len(task.fix) == 40
        assert task.expected_files
        assert all(not f.startswith("tests/") for f in task.expected_files)
        assert identifiers(task.prompt)
        for path in task.expected_files:  # a path, not prose
            assert "/" in path and path.endswith(".py")
        if task.kind == "edit":
            assert task.validation is not None
            assert task.validation.files
            assert "{python}" in task.validation.command


def test_the_proxy_on_a_small_fix(shop_repo, tmp_path):
    """Cartograph's answers reach the fixed file for fewer tokens than grep-and-read: a guard
    against answers that grow."""
    repo, before, _fix = shop_repo
    tasks = load_tasks([_task_file(tmp_path / "tasks", repo, before, FIND_TOTAL)])
    (result,) = run_proxy(tasks, Sources())
    assert result.terms == ["total"]
    assert result.cartograph_found and result.cartograph_named
    assert result.grep_found
    assert result.cartograph_calls[0]["tool"] == "locate"
    assert result.cartograph_tokens <= result.grep_tokens
    assert result.cartograph_tokens <= 450  # 298 when written: half as much again of room
    # most matches first: report.py, checkout.py, then docs/notes.md and cart.py (2 each)
    assert result.grep_files_read == 4
