"""Posting the impact report to a forge (cartograph.forge): the exact requests GitHub and GitLab
receive, against a real local HTTP server standing in for the forge, what a failing forge
leaves in `Posted.error`, and that a comment someone else wrote is never taken for ours."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from cartograph.forge import MARKER, ForgeTarget, comment_body, post_report
from forge_support import FakeForge, Seen, serve

TOKEN = "ghp-test-token-0123456789"
SHA = "c" * 40
BOT = 4242  # the token's user
SOMEONE = 77  # another user
GH_HEADERS = {
    "accept": "application/vnd.github+json",
    "x-github-api-version": "2022-11-28",
    "user-agent": "cartograph",
    "authorization": f"Bearer {TOKEN}",
}


@dataclass
class Answer:
    status: int
    body: Any = None  # JSON, or bytes as they are
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class Forge:
    """A local HTTP server answering scripted responses by (method, path with query), in order;
    an unscripted request answers 599 so a test fails on it."""

    def __init__(self) -> None:
        self.seen: list[Seen] = []
        self.script: dict[tuple[str, str], list[Answer]] = {}
        self.server = serve(self.seen, self._respond)
        self.port = self.server.server_address[1]

    def _respond(self, request: Seen) -> tuple[int, dict[str, str], bytes]:
        answers = self.script.get((request.method, request.path))
        answer = answers.pop(0) if answers else Answer(599, {"message": "unscripted"})
        time.sleep(answer.delay)
        data = answer.body
        if not isinstance(data, bytes):
            data = b"" if data is None else json.dumps(data).encode()
        return answer.status, answer.headers, data

    def url(self, path: str = "", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def on(self, method: str, path: str, *answers: Answer) -> None:
        self.script.setdefault((method, path), []).extend(answers)

    def requests(self) -> list[tuple[str, str, Any]]:
        return [(seen.method, seen.path, seen.body) for seen in self.seen]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


@pytest.fixture
def forge():
    server = Forge()
    # the token's user, once per API (each process asks once per token)
    server.on("GET", "/api/v3/user", Answer(200, {"id": BOT, "login": "carto-bot"}))
    server.on("GET", "/api/v4/user", Answer(200, {"id": BOT, "username": "carto-bot"}))
    yield server
    server.stop()


def _github(forge: Forge, api: str = "/api/v3/") -> ForgeTarget:
    return ForgeTarget("github", forge.url(api), TOKEN, "acme/app")


def _gitlab(forge: Forge, project: str = "group/sub/name") -> ForgeTarget:
    return ForgeTarget("gitlab", forge.url("/api/v4"), TOKEN, project)


GH_USER = ("GET", "/api/v3/user", None)
GL_USER = ("GET", "/api/v4/user", None)
GH = "/api/v3/repos/acme/app"
GH_LIST = f"{GH}/issues/7/comments?per_page=100"
GH_STATUS = f"{GH}/statuses/{SHA}"
GH_STATUS_BODY = {
    "state": "success",
    "description": "no impact",
    "context": "cartograph/impact",
    "target_url": "https://carto.example/r/1",
}
GL = "/api/v4/projects/group%2Fsub%2Fname"
GL_LIST = f"{GL}/merge_requests/7/notes?per_page=100&sort=asc"


def _comment(comment_id: int, body: str, author: int = BOT) -> dict[str, Any]:
    return {
        "id": comment_id,
        "body": body,
        "user": {"id": author, "login": f"user{author}", "type": "User"},
        "html_url": f"https://github.example/acme/app/pull/7#issuecomment-{comment_id}",
    }


def _note(note_id: int, body: str, author: int = BOT, system: bool = False) -> dict[str, Any]:
    return {"id": note_id, "body": body, "author": {"id": author}, "system": system}


def _post(target: ForgeTarget, **given: Any):
    arguments: dict[str, Any] = {
        "number": 7,
        "head_sha": SHA,
        "markdown": "## Impact\nnothing",
        "state": "success",
        "description": "no impact",
        "details_url": "https://carto.example/r/1",
    }
    arguments.update(given)
    return post_report(target, **arguments)


def test_github_first_post_lists_then_creates_and_sets_the_status(forge):
    forge.on("GET", GH_LIST, Answer(200, [_comment(1, "LGTM"), _comment(2, f"{MARKER}x", SOMEONE)]))
    forge.on("POST", f"{GH}/issues/7/comments", Answer(201, _comment(42, "")))
    forge.on("POST", GH_STATUS, Answer(201, {"id": 9}))
    posted = _post(_github(forge))
    assert posted.error == ""
    assert (posted.comment_id, posted.status_posted) == ("42", True)
    assert posted.comment_url == "https://github.example/acme/app/pull/7#issuecomment-42"
    assert forge.requests() == [
        GH_USER,
        ("GET", GH_LIST, None),
        ("POST", f"{GH}/issues/7/comments", {"body": f"{MARKER}\n## Impact\nnothing"}),
        ("POST", GH_STATUS, GH_STATUS_BODY),
    ]


def test_github_headers(forge):
    forge.on("GET", GH_LIST, Answer(200, []))
    forge.on("POST", f"{GH}/issues/7/comments", Answer(201, _comment(42, "")))
    forge.on("POST", GH_STATUS, Answer(201, {}))
    assert _post(_github(forge)).error == ""
    for seen in forge.seen:
        assert GH_HEADERS.items() <= seen.headers.items()
        assert "private-token" not in seen.headers
    user, listing, comment, status = forge.seen
    assert "content-type" not in listing.headers and "content-type" not in user.headers
    assert comment.headers["content-type"] == status.headers["content-type"] == "application/json"


def test_github_repost_edits_our_comment_found_on_page_two(forge):
    page2 = f"{GH}/issues/7/comments?per_page=100&page=2"
    forge.on(
        "GET",
        GH_LIST,
        Answer(
            200,
            [_comment(n, f"comment {n}") for n in range(100)],
            {"Link": f'<{forge.url(page2)}>; rel="next", <{forge.url(page2)}>; rel="last"'},
        ),
    )
    forge.on(
        "GET",
        page2,
        Answer(
            200,
            [
                _comment(500, f"{MARKER}\nlooks like ours", SOMEONE),
                _comment(501, f"{MARKER}\nold"),
                _comment(502, MARKER),
            ],
        ),
    )
    forge.on("PATCH", f"{GH}/issues/comments/501", Answer(200, _comment(501, "")))
    forge.on("POST", GH_STATUS, Answer(201, {}))
    posted = _post(_github(forge), markdown="new")
    assert (posted.error, posted.comment_id) == ("", "501")
    assert forge.requests() == [
        GH_USER,
        ("GET", GH_LIST, None),
        ("GET", page2, None),
        ("PATCH", f"{GH}/issues/comments/501", {"body": f"{MARKER}\nnew"}),
        ("POST", GH_STATUS, GH_STATUS_BODY),
    ]


def test_github_pages_at_most_ten(forge):
    for page in range(1, 12):
        path = GH_LIST if page == 1 else f"{GH_LIST}&page={page}"
        following = forge.url(f"{GH_LIST}&page={page + 1}")
        forge.on(
            "GET", path, Answer(200, [_comment(page, "x")], {"Link": f'<{following}>; rel="next"'})
        )
    forge.on("POST", f"{GH}/issues/7/comments", Answer(201, _comment(42, "")))
    forge.on("POST", GH_STATUS, Answer(201, {}))
    assert _post(_github(forge)).error == ""
    assert [method for method, _, _ in forge.requests()] == ["GET"] * 11 + ["POST", "POST"]


def test_previous_comment_id_is_edited_when_the_tokens_user_wrote_it(forge):
    forge.on("GET", f"{GH}/issues/comments/77", Answer(200, _comment(77, "old")))
    forge.on("PATCH", f"{GH}/issues/comments/77", Answer(200, _comment(77, "")))
    forge.on("POST", GH_STATUS, Answer(201, {}))
    posted = _post(_github(forge, "/api/v3"), previous_comment_id="77", state="failure")
    assert (posted.error, posted.comment_id, posted.status_posted) == ("", "77", True)
    assert forge.requests() == [
        GH_USER,
        ("GET", f"{GH}/issues/comments/77", None),
        ("PATCH", f"{GH}/issues/comments/77", {"body": f"{MARKER}\n## Impact\nnothing"}),
        ("POST", GH_STATUS, {**GH_STATUS_BODY, "state": "failure"}),
    ]


def test_a_deleted_comment_is_posted_anew(forge):
    forge.on("GET", f"{GH}/issues/comments/77", Answer(200, _comment(77, "old")))
    forge.on("PATCH", f"{GH}/issues/comments/77", Answer(404, {"message": "Not Found"}))
    forge.on("POST", f"{GH}/issues/7/comments", Answer(201, _comment(78, "")))
    forge.on("POST", GH_STATUS, Answer(201, {}))
    posted = _post(_github(forge), previous_comment_id="77")
    assert (posted.error, posted.comment_id) == ("", "78")
    body = {"body": f"{MARKER}\n## Impact\nnothing"}
    assert forge.requests() == [
        GH_USER,
        ("GET", f"{GH}/issues/comments/77", None),
        ("PATCH", f"{GH}/issues/comments/77", body),
        ("POST", f"{GH}/issues/7/comments", body),
        ("POST", GH_STATUS, GH_STATUS_BODY),
    ]


def test_gitlab_first_post(forge):
    forge.on("GET", GL_LIST, Answer(200, [_note(3, "hello"), _note(4, MARKER, SOMEONE)]))
    forge.on("POST", f"{GL}/merge_requests/7/notes", Answer(201, {"id": 11, "body": "x"}))
    forge.on("POST", f"{GL}/statuses/{SHA}", Answer(201, {"id": 5}))
    posted = _post(_gitlab(forge), state="failure", details_url="")
    assert posted.error == ""
    assert (posted.comment_id, posted.status_posted) == ("11", True)
    # GitLab's note has no web_url: the API URL of the note
    assert posted.comment_url == forge.url(f"{GL}/merge_requests/7/notes/11")
    assert forge.requests() == [
        GL_USER,
        ("GET", GL_LIST, None),
        ("POST", f"{GL}/merge_requests/7/notes", {"body": f"{MARKER}\n## Impact\nnothing"}),
        (
            "POST",
            f"{GL}/statuses/{SHA}",
            {"state": "failed", "name": "cartograph/impact", "description": "no impact"},
        ),
    ]
    for seen in forge.seen:
        assert seen.headers["private-token"] == TOKEN
        assert seen.headers["user-agent"] == "cartograph"
        assert "authorization" not in seen.headers


def test_gitlab_repost_edits_our_note_found_on_page_two(forge):
    forge.on("GET", GL_LIST, Answer(200, [_note(1, "hi")], {"X-Next-Page": "2"}))
    forge.on(
        "GET",
        f"{GL_LIST}&page=2",
        Answer(
            200,
            [
                _note(2, f"{MARKER} quoted by the system", system=True),
                _note(3, f"{MARKER}\nold"),
            ],
            {"X-Next-Page": ""},
        ),
    )
    forge.on("PUT", f"{GL}/merge_requests/7/notes/3", Answer(200, {"id": 3}))
    forge.on("POST", f"{GL}/statuses/{SHA}", Answer(201, {}))
    posted = _post(_gitlab(forge), state="error", markdown="new")
    assert (posted.error, posted.comment_id) == ("", "3")
    assert forge.requests() == [
        GL_USER,
        ("GET", GL_LIST, None),
        ("GET", f"{GL_LIST}&page=2", None),
        ("PUT", f"{GL}/merge_requests/7/notes/3", {"body": f"{MARKER}\nnew"}),
        (
            "POST",
            f"{GL}/statuses/{SHA}",
            {
                "state": "failed",
                "name": "cartograph/impact",
                "description": "no impact",
                "target_url": "https://carto.example/r/1",
            },
        ),
    ]


def test_gitlab_numeric_project_and_state_mapping(forge):
    for state, expected in (("success", "success"), ("pending", "pending")):
        forge.seen.clear()
        note = "/api/v4/projects/1234/merge_requests/7/notes/3"
        forge.on("GET", note, Answer(200, _note(3, "old")))
        forge.on("PUT", note, Answer(200, {"id": 3}))
        forge.on("POST", f"/api/v4/projects/1234/statuses/{SHA}", Answer(201, {}))
        posted = _post(_gitlab(forge, "1234"), state=state, previous_comment_id="3")
        assert posted.error == ""
        assert forge.seen[-1].body["state"] == expected


def test_gitlab_pending_twice_is_not_an_error(forge):
    forge.on("GET", f"{GL}/merge_requests/7/notes/3", Answer(200, _note(3, "old")))
    forge.on("PUT", f"{GL}/merge_requests/7/notes/3", Answer(200, {"id": 3}))
    refusal = 'Cannot transition status via :enqueue from :pending (Reason(s): Status cannot transition via "enqueue")'
    forge.on("POST", f"{GL}/statuses/{SHA}", Answer(400, {"message": refusal}))
    posted = _post(_gitlab(forge), state="pending", previous_comment_id="3")
    assert (posted.error, posted.status_posted) == ("", True)


def test_a_failed_comment_still_sets_the_status(forge):
    forge.on("GET", GH_LIST, Answer(200, []))
    forge.on("POST", f"{GH}/issues/7/comments", Answer(500, {"message": "Server Error"}))
    forge.on("POST", GH_STATUS, Answer(201, {}))
    posted = _post(_github(forge))
    assert posted.status_posted
    assert (posted.comment_id, posted.comment_url) == ("", "")
    assert posted.error == (
        "the comment: POST /repos/acme/app/issues/7/comments answered HTTP 500 (Server Error)"
    )
    assert forge.requests()[-1] == ("POST", GH_STATUS, GH_STATUS_BODY)


def test_a_failed_status_keeps_the_comment_and_both_failures_join(forge):
    forge.on("GET", GH_LIST, Answer(200, b"<html>not json</html>"))
    forge.on("POST", GH_STATUS, Answer(422, {"message": "Validation Failed"}))
    posted = _post(_github(forge))
    assert not posted.status_posted
    assert posted.error == (
        f"the comment: GET /repos/acme/app/issues/7/comments?per_page=100 answered HTTP 200 but not JSON; "
        f"the status: POST /repos/acme/app/statuses/{SHA} answered HTTP 422 (Validation Failed)"
    )
    # a listing that failed creates no comment: it might be a duplicate
    assert [method for method, _, _ in forge.requests()] == ["GET", "GET", "POST"]


def test_a_closed_server_is_an_error_not_an_exception():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    target = ForgeTarget("github", f"http://127.0.0.1:{port}", TOKEN, "acme/app")
    posted = _post(target)
    assert not posted.status_posted
    assert posted.error == (
        "the comment: GET /user could not reach the forge (connection refused); the status:"
        f" POST /repos/acme/app/statuses/{SHA} could not reach the forge (connection refused)"
    )


def test_a_slow_forge_times_out(forge):
    forge.on("GET", f"{GH}/issues/comments/1", Answer(200, _comment(1, "")))
    forge.on("PATCH", f"{GH}/issues/comments/1", Answer(200, _comment(1, ""), delay=1.0))
    forge.on("POST", GH_STATUS, Answer(201, {}))
    posted = _post(_github(forge), previous_comment_id="1", timeout=0.2)
    assert (
        posted.error == "the comment: PATCH /repos/acme/app/issues/comments/1 timed out after 0.2s"
    )
    assert posted.status_posted


def test_the_token_never_appears_in_the_error(forge):
    echo = f"Bad credentials: {TOKEN} is not valid"
    forge.on("GET", f"{GH}/issues/comments/1", Answer(401, {"message": echo}))
    forge.on("POST", GH_STATUS, Answer(401, {"message": echo}))
    posted = _post(_github(forge), previous_comment_id="1")
    assert TOKEN not in posted.error
    assert posted.error.count("Bad credentials: [token] is not valid") == 2


def test_long_markdown_is_cut_at_a_line(forge):
    forge.on("GET", f"{GH}/issues/comments/1", Answer(200, _comment(1, "")))
    lines = [f"line {n:06d} " + "x" * 80 for n in range(1000)]  # 88 000 characters
    markdown = "\n".join(lines)
    forge.on("PATCH", f"{GH}/issues/comments/1", Answer(200, _comment(1, "")))
    forge.on("POST", GH_STATUS, Answer(201, {}))
    assert _post(_github(forge), markdown=markdown, previous_comment_id="1").error == ""
    body = forge.seen[2].body["body"]
    assert len(body) <= 65_536
    head, *kept, tail = body.split("\n")
    assert head == MARKER
    assert tail == "… (cut: the full report is at https://carto.example/r/1)"
    assert kept == lines[: len(kept)] and len(kept) > 700
    assert len(body) + len(lines[len(kept)]) + 1 > 65_536  # no further line would have fitted

    short = comment_body("github", markdown)
    assert short.endswith("\n… (cut)") and len(short) <= 65_536
    assert comment_body("gitlab", markdown) == f"{MARKER}\n{markdown}"


def test_a_cut_inside_a_code_block_closes_it():
    markdown = "```\n" + "\n".join("y" * 99 for _ in range(700))
    body = comment_body("github", markdown)
    assert len(body) <= 65_536
    assert body.endswith("\n```\n… (cut)")
    # a block whose fence is longer (its lines hold backticks) is closed by that fence
    markdown = "```\nclosed\n```\n``````sh\n" + "\n".join("y `````" * 16 for _ in range(700))
    body = comment_body("github", markdown)
    assert len(body) <= 65_536
    assert body.endswith("\n``````\n… (cut)")


def test_the_description_is_cut_to_140(forge):
    forge.on("GET", f"{GH}/issues/comments/1", Answer(200, _comment(1, "")))
    forge.on("PATCH", f"{GH}/issues/comments/1", Answer(200, _comment(1, "")))
    forge.on("POST", GH_STATUS, Answer(201, {}))
    description = "d" * 200
    assert _post(_github(forge), description=description, previous_comment_id="1").error == ""
    sent = forge.seen[-1].body["description"]
    assert sent == "d" * 139 + "…" and len(sent) == 140


def test_a_redirect_to_another_host_is_refused(forge):
    other = Forge()
    try:
        elsewhere = other.url(f"{GH}/issues/comments/1", host="localhost")
        forge.on("GET", f"{GH}/issues/comments/1", Answer(200, _comment(1, "")))
        forge.on("PATCH", f"{GH}/issues/comments/1", Answer(307, None, {"Location": elsewhere}))
        forge.on("POST", GH_STATUS, Answer(308, None, {"Location": other.url(GH_STATUS)}))
        forge.on("GET", GH_LIST, Answer(200, [], {"Link": f'<{other.url(GH_LIST)}>; rel="next"'}))
        posted = _post(_github(forge), previous_comment_id="1")
        assert other.seen == []
        assert not posted.status_posted
        assert posted.error == (
            "the comment: PATCH /repos/acme/app/issues/comments/1 was redirected (HTTP 307) to"
            f" another host (localhost:{other.port}): refused; the status: POST"
            f" /repos/acme/app/statuses/{SHA} was redirected (HTTP 308) to another host"
            f" (127.0.0.1:{other.port}): refused"
        )
        # a next page on another host is not fetched either
        forge.on("POST", GH_STATUS, Answer(201, {}))
        posted = _post(_github(forge))
        assert other.seen == []
        assert posted.error.startswith("the comment: GET ")
        assert posted.error.endswith("is on another host than the API: refused")
    finally:
        other.stop()


def test_a_redirect_on_the_same_host_keeps_the_method(forge):
    moved = "/api/v3/repos/acme/renamed"
    forge.on("GET", f"{GH}/issues/comments/1", Answer(200, _comment(1, "")))
    forge.on(
        "PATCH",
        f"{GH}/issues/comments/1",
        Answer(307, None, {"Location": f"{moved}/issues/comments/1"}),
    )
    forge.on("PATCH", f"{moved}/issues/comments/1", Answer(200, _comment(1, "")))
    forge.on("POST", GH_STATUS, Answer(302, None, {"Location": f"{moved}/statuses/{SHA}"}))
    posted = _post(_github(forge), previous_comment_id="1")
    assert posted.comment_id == "1"
    assert forge.requests()[2:4] == [
        ("PATCH", f"{GH}/issues/comments/1", {"body": f"{MARKER}\n## Impact\nnothing"}),
        ("PATCH", f"{moved}/issues/comments/1", {"body": f"{MARKER}\n## Impact\nnothing"}),
    ]
    assert forge.seen[3].headers["authorization"] == f"Bearer {TOKEN}"
    # a 302 would turn the POST into a GET: not followed
    assert len(forge.seen) == 5
    assert posted.error == (
        f"the status: POST /repos/acme/app/statuses/{SHA} was redirected (HTTP 302): not followed,"
        " it would turn into a GET"
    )


@pytest.mark.parametrize(
    ("api_url", "why"),
    [
        ("ftp://ghe.example/api/v3", "must be an https URL"),
        ("file:///etc/passwd", "must be an https URL"),
        ("ghe.example/api", "must be an https URL"),
        ("https://", "must be an https URL"),
        ("http://ghe.example/api/v3", "plain http to ghe.example"),
        ("http://10.0.0.8:8080/api/v4", "plain http to 10.0.0.8"),
    ],
)
def test_api_url_must_be_https_or_this_machine(api_url, why):
    with pytest.raises(ValueError, match=why) as raised:
        _post(ForgeTarget("github", api_url, TOKEN, "acme/app"))
    assert TOKEN not in str(raised.value)


def test_bad_calls_raise_before_any_request(forge):
    target = _github(forge)
    with pytest.raises(ValueError, match="unknown state"):
        _post(target, state="failed")
    with pytest.raises(ValueError, match="unknown forge"):
        _post(ForgeTarget("bitbucket", forge.url(), TOKEN, "acme/app"))
    with pytest.raises(ValueError, match="owner/name"):
        _post(ForgeTarget("github", forge.url(), TOKEN, "group/sub/name"))
    with pytest.raises(ValueError, match="commit sha"):
        _post(target, head_sha="main")
    with pytest.raises(ValueError, match="token") as raised:
        _post(ForgeTarget("github", forge.url(), TOKEN + "\nX-Evil: 1", "acme/app"))
    assert TOKEN not in str(raised.value)
    assert forge.seen == []


# ---------------------------------------------------------------- whose comment is ours

MALLORY = "mallory-token"


@pytest.fixture(params=["github", "gitlab"])
def fake(request):
    kind = request.param
    server = FakeForge(
        kind=kind,
        project="acme/app" if kind == "github" else "group/app",
        prefix="/api/v3" if kind == "github" else "/api/v4",
        users={TOKEN: (BOT, "carto-bot"), MALLORY: (SOMEONE, "mallory")},
        edit_others=True,  # the token may edit anyone's comment: nothing stops a hijack but us
    ).start()
    yield server
    server.stop()


def _fake_target(fake: FakeForge) -> ForgeTarget:
    return ForgeTarget(fake.kind, fake.url + fake.prefix, TOKEN, fake.project)


def test_a_comment_someone_else_wrote_with_our_marker_is_never_taken(fake):
    lure = fake.write(SOMEONE, f"{MARKER}\nlooks like the report: see [this](https://evil.example)")
    first = _post(_fake_target(fake), markdown="the report")
    assert first.error == ""
    assert first.comment_id != str(lure)
    assert fake.comments[lure].body.startswith(f"{MARKER}\nlooks like the report")
    ours = fake.comments[int(first.comment_id)]
    assert (ours.author, ours.body) == (BOT, f"{MARKER}\nthe report")

    # its id lost, the report is found again by its marker — ours, not the lure
    again = _post(_fake_target(fake), markdown="the report, again")
    assert (again.error, again.comment_id) == ("", first.comment_id)
    assert ours.body == f"{MARKER}\nthe report, again"
    # an id remembered from before (say, a comment taken by an older version) that someone
    # else wrote is not edited either: ours is
    remembered = _post(_fake_target(fake), markdown="third", previous_comment_id=str(lure))
    assert (remembered.error, remembered.comment_id) == ("", first.comment_id)
    assert "looks like the report" in fake.comments[lure].body and ours.body.endswith("third")
    assert len(fake.comments) == 2
    # the token's user was asked for once
    assert fake.requests().count(("GET", f"{fake.prefix}/user")) == 1
    edits = [s for s in fake.seen if s.method in ("PATCH", "PUT")]
    assert edits and all(s.path.endswith(f"/{first.comment_id}") for s in edits)


def test_a_refused_edit_posts_a_new_comment(fake):
    fake.no_user = True  # a token the forge gives no user (a GitHub App's)
    fake.edit_others = False
    lure = fake.write(SOMEONE, f"{MARKER}\nnot the report")
    # nothing tells whose the lure is: not adopted
    first = _post(_fake_target(fake), markdown="one")
    assert first.error == "" and first.comment_id != str(lure)
    # an id remembered from before that the forge will not let us edit: a new comment
    second = _post(_fake_target(fake), markdown="two", previous_comment_id=str(lure))
    assert second.error == "" and second.comment_id not in (str(lure), first.comment_id)
    assert fake.comments[int(second.comment_id)].body == f"{MARKER}\ntwo"
    assert fake.comments[lure].body == f"{MARKER}\nnot the report"
    # the one it posted before is edited in place
    third = _post(_fake_target(fake), markdown="three", previous_comment_id=second.comment_id)
    assert (third.error, third.comment_id) == ("", second.comment_id)
    assert fake.comments[int(second.comment_id)].body == f"{MARKER}\nthree"
