"""The `cartograph` command: parses arguments, calls the library, renders the answer."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


class CliError(Exception):
    """A user-facing failure: printed as one line, no traceback."""


def _store(args: argparse.Namespace):
    from cartograph.store import open_store

    return open_store(args.store)


def _emit(args: argparse.Namespace, answer: Any) -> None:
    from cartograph.query import render, to_json

    sys.stdout.write(to_json(answer) + "\n" if args.json else render(answer))


# ---------------------------------------------------------------- commands


def cmd_index(args: argparse.Namespace) -> None:
    from cartograph.index import index_repository
    from cartograph.query import stats
    from cartograph.store import display_url

    store = _store(args)
    progress = None if args.json or args.quiet else (lambda msg: print(f"… {msg}", file=sys.stderr))
    result = index_repository(
        store,
        args.path,
        args.name,
        max_bytes=args.max_bytes,
        workers=args.workers,
        progress=progress,
        files=args.files,
        history=not args.no_history,
        remine=args.remine,
    )
    summary = stats(store, result.repo)
    if args.json:
        from cartograph.query import to_data

        print(json.dumps({"index": to_data(result), "stats": to_data(summary)}, indent=1))
        return
    from cartograph.query import render

    changed = (
        f"{result.parsed} parsed, {result.unchanged} unchanged, {result.deleted} deleted, "
        f"{result.reresolved} re-resolved, {result.skipped} skipped"
    )
    print(
        f"indexed {result.repo} from {result.root} in {result.total_seconds:.2f} s "
        f"({result.files} files: {changed}) into {display_url(store.url)}"
    )
    if result.history is not None and (result.history.commits or result.history.rebuilt):
        mined = result.history
        print(
            f"history: {mined.commits} commits mined ({mined.touches} file and "
            f"{mined.symbol_touches} symbol changes) in {mined.seconds:.2f} s"
        )
        for note in mined.notes:
            print(f"history: {note}")
    for note in result.notes:
        print(note)
    if result.syntax_errors:
        shown = ", ".join(result.syntax_errors[:5])
        print(
            f"syntax errors (indexed what parses): {shown}"
            + (" …" if len(result.syntax_errors) > 5 else "")
        )
    sys.stdout.write(render(summary))
    print(
        f"next: cartograph search NAME · cartograph context NAME · cartograph overview --repo {result.repo}"
    )


def cmd_search(args: argparse.Namespace) -> None:
    from cartograph.query import search

    kinds = args.kind.split(",") if args.kind else None
    _emit(args, search(_store(args), args.query, args.repo, kinds, args.limit, args.offset))


def cmd_context(args: argparse.Namespace) -> None:
    from cartograph.query import context

    _emit(args, context(_store(args), args.symbol, args.repo))


def cmd_neighbors(args: argparse.Namespace) -> None:
    from cartograph.query import neighbors

    answer = neighbors(
        _store(args),
        args.symbol,
        args.command,
        repo=args.repo,
        limit=args.limit,
        offset=args.offset,
        include_references=args.references,
    )
    _emit(args, answer)


def cmd_trace(args: argparse.Namespace) -> None:
    from cartograph.query import trace

    answer = trace(
        _store(args),
        args.symbol,
        args.direction,
        args.depth,
        args.repo,
        args.fanout,
        args.references,
    )
    _emit(args, answer)


def cmd_path(args: argparse.Namespace) -> None:
    from cartograph.query import path

    _emit(
        args,
        path(_store(args), args.source, args.target, args.repo, args.max_depth, args.references),
    )


def cmd_dead_code(args: argparse.Namespace) -> None:
    from cartograph.query import dead_code
    from cartograph.query.common import pick_repo

    store = _store(args)
    repo = pick_repo(store, args.repo, os.getcwd())
    verdicts = args.verdict.split(",") if args.verdict else None
    answer = dead_code(
        store, repo, args.path, verdicts, args.limit, args.offset, include_tests=args.include_tests
    )
    _emit(args, answer)


def cmd_overview(args: argparse.Namespace) -> None:
    from cartograph.query import overview
    from cartograph.query.common import pick_repo

    store = _store(args)
    _emit(args, overview(store, pick_repo(store, args.repo, os.getcwd()), args.limit))


def cmd_stats(args: argparse.Namespace) -> None:
    from cartograph.query import stats
    from cartograph.query.common import pick_repo

    store = _store(args)
    _emit(args, stats(store, pick_repo(store, args.repo, os.getcwd())))


def cmd_repos(args: argparse.Namespace) -> None:
    from cartograph.query import to_data

    repos = _store(args).repos.list_repos()
    if args.json:
        print(json.dumps(to_data(repos), indent=1))
        return
    if not repos:
        print("nothing indexed yet: cartograph index PATH")
    for repo in repos:
        sha = repo.indexed_sha[:10] or "no commit"
        dirty = " (uncommitted changes)" if repo.dirty else ""
        print(f"{repo.name}  {sha}{dirty}  indexed {repo.indexed_at}  {repo.root}")


def cmd_export(args: argparse.Namespace) -> None:
    from cartograph.query.common import pick_repo

    store = _store(args)
    repo = pick_repo(store, args.repo, os.getcwd())
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout  # noqa: SIM115
    try:
        for item in store.graph.export(repo):
            out.write(json.dumps(item, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()


def cmd_history(args: argparse.Namespace) -> None:
    from cartograph.query.history import history

    _emit(args, history(_store(args), args.target, args.repo, args.limit, args.offset))


def cmd_co_changes(args: argparse.Namespace) -> None:
    from cartograph.query.history import co_changes

    _emit(args, co_changes(_store(args), args.target, args.repo, args.limit, args.min_count))


def cmd_owners(args: argparse.Namespace) -> None:
    from cartograph.query.history import owners

    _emit(args, owners(_store(args), args.target, args.repo, args.limit))


def cmd_explain(args: argparse.Namespace) -> None:
    from cartograph.query.history import explain

    _emit(args, explain(_store(args), args.symbol, args.repo))


def cmd_mcp(args: argparse.Namespace) -> None:
    from cartograph.mcp_server import run_stdio

    run_stdio(args.store)


def _job_state():
    """The shared job state when a broker is configured (queue depths), else None."""
    broker = os.environ.get("CARTOGRAPH_BROKER")
    if not broker:
        return None
    from cartograph.workers.state import RedisJobState

    return RedisJobState(broker)


def _status_line(status) -> str:
    indexed = status.indexed_sha[:10] or "not indexed"
    lag = "?" if status.lag is None else status.lag
    line = (
        f"{status.name}  {status.branch}  indexed {indexed}  head {status.head_sha[:10] or '?'}"
        f"  lag {lag}  queue {status.queue_depth}"
    )
    if status.last_job_at:
        line += f"  last job {status.last_job_seconds:.1f} s at {status.last_job_at}"
    if status.last_error:
        line += f"\n  last error ({status.last_error_at}): {status.last_error}"
    return line


def cmd_repo(args: argparse.Namespace) -> None:
    from cartograph.sync import default_data_dir
    from cartograph.tracking import (
        TrackingError,
        add_tracked,
        remove_tracked,
        repo_status,
        require_tracked,
    )

    store = _store(args)
    data_dir = default_data_dir()
    try:
        if args.repo_command == "add":
            tracked = add_tracked(store, args.name, args.url, args.branch, args.secret)
            answer = {
                "name": tracked.name,
                "url": tracked.url,
                "branch": tracked.branch,
                "secret": tracked.secret,
                "webhooks": [f"/webhooks/{p}/{tracked.name}" for p in _providers()],
            }
            if args.json:
                print(json.dumps(answer, indent=1))
                return
            print(f"tracking {tracked.name}: {tracked.url} ({tracked.branch})")
            print(f"webhook secret (shown once): {tracked.secret}")
            print("webhook paths: " + ", ".join(answer["webhooks"]))
            print(f"next: cartograph repo sync {tracked.name}")
        elif args.repo_command == "list":
            state = _job_state()
            rows = [
                repo_status(store, t.name, state, data_dir) for t in store.tracking.tracked_repos()
            ]
            if args.json:
                print(json.dumps([r.as_dict() for r in rows], indent=1))
            else:
                print("\n".join(_status_line(r) for r in rows) or "no tracked repositories")
        elif args.repo_command == "remove":
            remove_tracked(store, args.name, data_dir, args.keep_graph)
            print(f"{args.name} is no longer tracked")
        elif args.repo_command == "status":
            status = repo_status(store, args.name, _job_state(), data_dir)
            print(json.dumps(status.as_dict(), indent=1) if args.json else _status_line(status))
        elif args.repo_command == "sync":
            _sync_now(args, store, data_dir, require_tracked(store, args.name))
    except TrackingError as exc:
        raise CliError(str(exc)) from exc


def _providers() -> tuple[str, ...]:
    from cartograph.webhooks import PROVIDERS

    return PROVIDERS


def _sync_now(args: argparse.Namespace, store, data_dir, tracked) -> None:
    """With a broker: queue the job for the workers. Without: run it here and now."""
    target = args.sha or f"refs/heads/{tracked.branch}"
    broker = os.environ.get("CARTOGRAPH_BROKER")
    if broker:
        from cartograph.workers.celery_app import CeleryJobRunner

        started = CeleryJobRunner(broker).push(tracked.name, target)
        print(f"queued {tracked.name} at {target}" + ("" if started else " (a job is running)"))
        return
    from cartograph.jobs import MemoryJobState, run_job

    state = MemoryJobState()
    state.announce(tracked.name, target)
    outcome = run_job(store, tracked.name, state, data_dir, workers=args.workers)
    if outcome.status != "synced":
        raise CliError(f"sync of {tracked.name} failed: {outcome.error}")
    for result in outcome.results:
        fields = result.log_fields()
        print(json.dumps(fields) if args.json else " ".join(f"{k}={v}" for k, v in fields.items()))


def cmd_token(args: argparse.Namespace) -> None:
    from cartograph.auth import create_token

    store = _store(args)
    if args.token_command == "create":
        try:
            token, record = create_token(store, args.name, args.scopes.split(","))
        except ValueError as exc:
            raise CliError(str(exc)) from exc
        if args.json:
            print(json.dumps({"name": record.name, "scopes": list(record.scopes), "token": token}))
            return
        print(f"token {record.name} ({', '.join(record.scopes)}), shown only now:\n{token}")
    elif args.token_command == "list":
        rows = store.tokens.list_tokens()
        if args.json:
            print(
                json.dumps(
                    [
                        {
                            "name": t.name,
                            "scopes": list(t.scopes),
                            "created_at": t.created_at,
                            "revoked_at": t.revoked_at,
                        }
                        for t in rows
                    ],
                    indent=1,
                )
            )
            return
        for t in rows:
            state = f"revoked {t.revoked_at}" if t.revoked_at else "active"
            print(f"{t.name}  {','.join(t.scopes)}  created {t.created_at}  {state}")
        if not rows:
            print("no tokens")
    elif args.token_command == "revoke":
        if not store.tokens.revoke_token(args.name, _utc_now()):
            raise CliError(f"no active token named {args.name}")
        print(f"revoked {args.name}")


def _utc_now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds")


def cmd_serve(args: argparse.Namespace) -> None:
    import uvicorn

    if args.host not in ("127.0.0.1", "localhost", "::1"):
        # reachable from elsewhere: every route but health and webhooks needs a token
        os.environ["CARTOGRAPH_REQUIRE_TOKENS"] = "1"
    if args.store:
        os.environ["CARTOGRAPH_STORE"] = args.store
    uvicorn.run(
        "cartograph.api.app:app_from_environment",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="info",
    )


# ---------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--store",
        default=argparse.SUPPRESS,
        help="store URL: sqlite:///path/graph.db or neo4j://host:7687 (default: $CARTOGRAPH_STORE "
        "or ~/.local/share/cartograph/graph.db)",
    )
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="JSON output"
    )

    parser = argparse.ArgumentParser(
        prog="cartograph",
        description="A code graph for coding agents: index repositories, then ask where things "
        "are, who calls them and what they reach.",
        parents=[common],
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, handler, help_text: str) -> argparse.ArgumentParser:
        command = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        command.set_defaults(handler=handler)
        return command

    def paging(command: argparse.ArgumentParser, limit: int = 20) -> None:
        command.add_argument(
            "--limit", type=int, default=limit, help=f"page size (default {limit})"
        )
        command.add_argument("--offset", type=int, default=0, help="skip this many results")

    index = add(
        "index", cmd_index, "index a repository (incremental: only changed files are parsed)"
    )
    index.add_argument("path", nargs="?", default=".", help="repository folder (default: .)")
    index.add_argument("--name", help="repository name (default: the folder's name)")
    index.add_argument(
        "--max-bytes", type=int, default=1024 * 1024, help="skip larger files (default 1 MiB)"
    )
    index.add_argument(
        "--workers", type=int, default=None, help="parser processes (default: CPU count)"
    )
    index.add_argument("--quiet", action="store_true", help="no progress messages")
    index.add_argument(
        "--no-history", action="store_true", help="do not mine git history after indexing"
    )
    index.add_argument(
        "--remine",
        action="store_true",
        help="forget the mined history and mine all of it again",
    )
    index.add_argument(
        "--files",
        nargs="+",
        metavar="FILE",
        help="look only at these files (relative to PATH), e.g. the ones just edited",
    )

    search = add("search", cmd_search, "find symbols by name or concept, ranked")
    search.add_argument("query")
    search.add_argument("--repo")
    search.add_argument("--kind", help="comma-separated: module,class,function,method,variable")
    paging(search)

    context = add(
        "context", cmd_context, "one symbol: location, signature, doc, members, callers, callees"
    )
    context.add_argument("symbol", help="name, qualified name or id repo:path#qualname")
    context.add_argument("--repo")

    for name, text in (("callers", "who calls a symbol"), ("callees", "what a symbol calls")):
        command = add(name, cmd_neighbors, text)
        command.add_argument("symbol")
        command.add_argument("--repo")
        command.add_argument(
            "--references",
            action="store_true",
            help="include REFERENCES (callbacks, decorators, types)",
        )
        paging(command)

    trace = add(
        "trace", cmd_trace, "call tree from a symbol (out: what it reaches; in: what reaches it)"
    )
    trace.add_argument("symbol")
    trace.add_argument("--direction", choices=("in", "out"), default="out")
    trace.add_argument("--depth", type=int, default=3)
    trace.add_argument("--fanout", type=int, default=20, help="children shown per node")
    trace.add_argument("--repo")
    trace.add_argument("--references", action="store_true")

    path = add("path", cmd_path, "shortest call path between two symbols")
    path.add_argument("source")
    path.add_argument("target")
    path.add_argument("--repo")
    path.add_argument("--max-depth", type=int, default=8)
    path.add_argument("--references", action="store_true")

    dead = add("dead-code", cmd_dead_code, "functions, methods and classes nothing reaches")
    dead.add_argument("--repo")
    dead.add_argument("--path", default="", help="only under this path prefix")
    dead.add_argument("--verdict", help="comma-separated: dead,unknown,live (default: dead)")
    dead.add_argument("--include-tests", action="store_true")
    paging(dead, 50)

    overview = add("overview", cmd_overview, "packages, their imports, most-called symbols")
    overview.add_argument("--repo")
    overview.add_argument("--limit", type=int, default=15, help="most-called symbols shown")

    stats = add("stats", cmd_stats, "counts, skipped files, unresolved-call rate, stale files")
    stats.add_argument("--repo")

    hist = add("history", cmd_history, "the latest commits that changed a file or a symbol")
    hist.add_argument("target", help="a file path or a symbol")
    hist.add_argument("--repo")
    paging(hist)

    co = add(
        "co-changes", cmd_co_changes, "files or symbols that usually change together with this one"
    )
    co.add_argument("target", help="a file path or a symbol")
    co.add_argument("--repo")
    co.add_argument("--limit", type=int, default=20)
    co.add_argument("--min-count", type=int, default=2, help="shared commits needed (default 2)")

    own = add(
        "owners", cmd_owners, "who knows a file, a folder or a symbol (recent work counts more)"
    )
    own.add_argument("target", help="a file path, a folder or a symbol")
    own.add_argument("--repo")
    own.add_argument("--limit", type=int, default=10)

    exp = add(
        "explain",
        cmd_explain,
        "a symbol's context with its last commits, owners and co-change partners",
    )
    exp.add_argument("symbol")
    exp.add_argument("--repo")

    repos = add("repos", cmd_repos, "list indexed repositories")
    del repos

    export = add("export", cmd_export, "nodes and edges as JSON lines")
    export.add_argument("--repo")
    export.add_argument("--output", "-o", help="file to write (default: stdout)")

    add("mcp", cmd_mcp, "run the MCP server on stdio (for Claude Code, Cursor, Codex, ...)")

    repo = add("repo", cmd_repo, "repositories kept fresh by pushes (webhooks, sync jobs)")
    repo_sub = repo.add_subparsers(dest="repo_command", required=True, metavar="ACTION")
    repo_add = repo_sub.add_parser("add", parents=[common], help="track a repository")
    repo_add.add_argument("name")
    repo_add.add_argument("--url", required=True, help="git URL the mirror is cloned from")
    repo_add.add_argument("--branch", default="main", help="branch to follow (default main)")
    repo_add.add_argument("--secret", help="webhook secret (default: generated, printed once)")
    repo_sub.add_parser("list", parents=[common], help="tracked repositories and their status")
    repo_remove = repo_sub.add_parser("remove", parents=[common], help="stop tracking")
    repo_remove.add_argument("name")
    repo_remove.add_argument(
        "--keep-graph", action="store_true", help="keep the repository's graph"
    )
    repo_status_cmd = repo_sub.add_parser(
        "status",
        parents=[common],
        help="branch, head and indexed commits, lag, queue depth, last error and job time",
    )
    repo_status_cmd.add_argument("name")
    repo_sync = repo_sub.add_parser(
        "sync", parents=[common], help="sync now (queued for the workers when a broker is set)"
    )
    repo_sync.add_argument("name")
    repo_sync.add_argument("--sha", help="commit to index (default: the branch's head)")
    repo_sync.add_argument("--workers", type=int, default=None, help="parser processes")

    token = add("token", cmd_token, "bearer tokens for people and agents (scopes)")
    token_sub = token.add_subparsers(dest="token_command", required=True, metavar="ACTION")
    token_create = token_sub.add_parser("create", parents=[common], help="create a token")
    token_create.add_argument("--name", required=True)
    token_create.add_argument(
        "--scopes", default="read", help="comma-separated: read,claims,admin (default read)"
    )
    token_sub.add_parser("list", parents=[common], help="tokens (never their secrets)")
    token_revoke = token_sub.add_parser("revoke", parents=[common], help="revoke a token")
    token_revoke.add_argument("name")

    serve = add(
        "serve", cmd_serve, "run the HTTP app: MCP at /mcp, webhooks, repository API, health"
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.store = getattr(args, "store", None)
    args.json = getattr(args, "json", False)
    from cartograph.index import IndexingError
    from cartograph.query import QueryError
    from cartograph.store import StoreError

    try:
        args.handler(args)
    except (QueryError, IndexingError, StoreError, CliError) as exc:
        print("cartograph: " + " ".join(str(exc).split()), file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
