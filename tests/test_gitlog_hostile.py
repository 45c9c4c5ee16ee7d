"""Commit messages (and author names) are data, never structure: whatever text a commit carries,
mining reads the same commits, files and authors that git itself records. The class of defect:
a message with the old record separators (\\x1e\\x1f) crashed every sync, and one with a fake
`diff --git` header forged history (owners credited a commit that never touched the file)."""

from __future__ import annotations

import pytest
from cartograph.history.gitlog import read_commits
from cartograph.index import index_repository
from cartograph.query.history import history, owners
from history_support import ALICE, BOB, Repo, func
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

MALLORY = ("Mallory", "mallory@example.com")
# pieces that look like the structure of `git log` output, and the old separators
STRUCTURE = [
    "\x1e",
    "\x1f",
    "\x1e\x1f",
    "\n",
    "diff --git a/one.py b/one.py\n",
    "new file mode 100644\n",
    "deleted file mode 100644\n",
    "rename from one.py\nrename to two.py\n",
    "@@ -1,0 +1,900 @@\n",
    "+++ b/one.py\n",
    "--- a/one.py\n",
    "M\tone.py\n",
    "R100\tone.py\tthree.py\n",
    "Binary files a/x and b/x differ\n",
    "\x001234567890123456789012345678901234567890",  # git refuses NUL: dropped below
    "\t",
    "é ✓ 💥",
]
MESSAGES = st.lists(
    st.one_of(
        st.sampled_from(STRUCTURE),
        st.text(
            alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
            max_size=30,
        ),
    ),
    min_size=1,
    max_size=12,
).map(lambda parts: "".join(parts).replace("\x00", ""))


def commit_verbatim(repo: Repo, message: str, who, at: str, files: dict[str, str]) -> str:
    """A commit whose message is stored exactly as given (no cleanup of comments or blank
    lines), from a file, as a tool that writes commit messages would."""
    message_file = repo.root.parent / f"{repo.root.name}.message"
    message_file.write_text(message or ".", encoding="utf-8")
    for rel, text in files.items():
        repo.write(rel, text)
    name, email = who
    repo.git("add", "-A")
    repo.git(
        "-c", f"user.name={name}", "-c", f"user.email={email}",
        "commit", "-q", "--allow-empty", "--cleanup=verbatim", "-F", str(message_file),
        env={"GIT_AUTHOR_DATE": f"{at}T12:00:00+00:00", "GIT_COMMITTER_DATE": f"{at}T12:00:00+00:00"},
    )  # fmt: skip
    return repo.head()


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(first=MESSAGES, second=MESSAGES)
def test_any_message_reads_back_with_the_files_its_commit_changed(tmp_path_factory, first, second):
    repo = Repo(tmp_path_factory.mktemp("fuzz") / "repo")
    one = commit_verbatim(repo, first, ALICE, "2024-01-01", {"one.py": func("one")})
    two = commit_verbatim(
        repo, second, MALLORY, "2024-01-02", {"two.py": func("two"), "one.py": func("one")}
    )
    expected_messages = {sha: repo.git("log", "-1", "--format=%B", sha) for sha in (one, two)}
    for hunks in (True, False):
        commits = list(read_commits(repo.root, "HEAD", hunks=hunks))
        assert [c.sha for c in commits] == [two, one]
        newest, oldest = commits
        assert [(c.old_path, c.new_path) for c in oldest.changes] == [(None, "one.py")]
        assert [(c.old_path, c.new_path) for c in newest.changes] == [(None, "two.py")]
        assert (newest.author_email, oldest.author_email) == (MALLORY[1], ALICE[1])
        for commit in commits:
            assert commit.message == expected_messages[commit.sha].strip()[:4000]
        if hunks:
            assert [h for c in oldest.changes for h in c.hunks] == [(0, 0, 1, 2)]


def forged_history_repo(root) -> Repo:
    """Alice writes billing.py (100 lines); Mallory commits an unrelated file with a message
    that imitates a commit changing 900 lines of billing.py; Bob makes a real 1-line edit."""
    repo = Repo(root)
    lines = [f"    x{i} = {i}" for i in range(98)]
    commit_verbatim(repo, "billing", ALICE, "2024-01-01", {"billing.py": func("pay", *lines)})
    forged = (
        "docs\x1e\n"  # the old parser's end of a header, then what looks like a patch
        "diff --git a/billing.py b/billing.py\n"
        "--- a/billing.py\n"
        "+++ b/billing.py\n"
        "@@ -1,0 +1,900 @@\n"
    )
    commit_verbatim(repo, forged, MALLORY, "2024-01-02", {"README.md": "read me\n"})
    commit_verbatim(
        repo, "one line", BOB, "2024-01-03", {"billing.py": func("pay", *lines[:-1], "    y = 1")}
    )
    return repo


def test_a_forged_diff_in_a_message_credits_nothing(tmp_path, stores):
    repo = forged_history_repo(tmp_path / "forged")
    store = stores.open()
    result = index_repository(store, repo.root, name="forged", workers=1)
    assert result.history is not None and result.history.commits == 3
    assert not any("not mined" in note for note in result.notes)
    who = {(o.email, o.commits, o.lines) for o in owners(store, "billing.py").owners}
    assert who == {(ALICE[1], 1, 99), (BOB[1], 1, 2)}
    assert [e.author for e in history(store, "billing.py").entries] == [BOB[1], ALICE[1]]


@pytest.mark.parametrize("message", ["fix\x1e\x1fparse", "\x1e\x1f", "a\x1fb\x1ec"])
def test_record_separators_in_a_message_are_mined(tmp_path, stores, message):
    repo = Repo(tmp_path / "sep")
    commit_verbatim(repo, "start", ALICE, "2024-01-01", {"app.py": func("main")})
    commit_verbatim(repo, message, BOB, "2024-01-02", {"app.py": func("main", "return 1")})
    store = stores.open()
    result = index_repository(store, repo.root, name="sep", workers=1)
    assert result.history is not None and result.history.commits == 2, result.notes
    page = history(store, "app.py")
    assert [(e.author, e.message) for e in page.entries] == [
        (BOB[1], message.strip()),
        (ALICE[1], "start"),
    ]


def test_hostile_author_names_are_data(tmp_path):
    repo = Repo(tmp_path / "names")
    commit_verbatim(repo, "a", ("Eve\x1f\x1e Tab\tName", "eve@example.com"), "2024-01-01",
                    {"a.py": func("a")})  # fmt: skip
    [commit] = read_commits(repo.root, "HEAD")
    assert commit.author_email == "eve@example.com"
    assert commit.author_name == repo.git("log", "-1", "--format=%aN").strip()
    assert [(c.old_path, c.new_path) for c in commit.changes] == [(None, "a.py")]
