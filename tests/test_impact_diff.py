"""cartograph.impact.diff: real diffs written by git (diff, diff -M --binary, format-patch) and
by `diff -u` are parsed and applied back to their old contents; offsets, mismatches, CRLF,
no newline at end of file, the lines a change touches, and garbage (also fuzzed)."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from cartograph.errors import ErrorKind
from cartograph.impact.diff import (
    MAX_PATCH_BYTES,
    FileDiff,
    Patch,
    PatchError,
    PatchMismatch,
    apply,
    parse_patch,
)

# no user or system configuration leaks into the test repositories
GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
}
GIT_SETTINGS = [
    "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false",
    "-c", "core.autocrlf=false", "-c", "core.quotepath=true", "-c", "core.filemode=true",
]  # fmt: skip

SHOP = "".join(f"    total += {n}  # step {n}\n" for n in range(1, 25))
BEFORE: dict[str, str] = {
    "src/shop.py": f"import os\n\n\ndef place_order(items):\n    total = 0\n{SHOP}    return total\n",
    "mover.py": "".join(f"line {n} of the file that moves\n" for n in range(1, 13)),
    "gone.txt": "bye\nnow\n",
    "script.sh": "#!/bin/sh\necho hi\n",
    "my notes.txt": "one\ntwo\nthree\n",
    "späce.txt": "alpha\nbeta\n",
    "windows.txt": "first\r\nsecond\r\nthird\r\n",
    "no_newline.txt": "first\nlast line without newline",
    "gains_newline.txt": "x",
    "loses_newline.txt": "y\n",
}
AFTER: dict[str, str] = {
    "src/shop.py": BEFORE["src/shop.py"]
    .replace("    total += 3  # step 3\n", "    total += 3  # step three\n")
    .replace("    total += 20  # step 20\n", "")
    .replace("    return total\n", "    total += os.getpid() * 0\n    return total\n"),
    "pkg/moved.py": BEFORE["mover.py"].replace("line 7 of", "line seven of"),
    "script.sh": BEFORE["script.sh"],
    "my notes.txt": "one\n2\nthree\nfour\n",
    "späce.txt": "alpha\nbeta\ngamma\n",
    "windows.txt": "first\r\nsecond, changed\r\nthird\r\nfourth\r\n",
    "no_newline.txt": "first\nchanged last line\nstill without newline",
    "gains_newline.txt": "x\n",
    "loses_newline.txt": "y",
    "fresh.txt": "brand\nnew\n",
    "empty_added.txt": "",
}
LOGO_BEFORE = bytes(range(256)) * 4
LOGO_AFTER = bytes(reversed(range(256))) * 4 + b"\x00tail"

# GNU diff's own output is the point of these tests: on a machine without it they skip, and in
# CI (CI=true) they fail, as a missing Neo4j or Redis does
NEEDS_DIFF = pytest.mark.skipif(
    shutil.which("diff") is None and os.environ.get("CI") != "true", reason="no diff program"
)


def git(root: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(
        ["git", *GIT_SETTINGS, *args],
        cwd=root,
        capture_output=True,
        env=GIT_ENV,
        check=False,
    )
    if check:
        assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr!r}"
    return done.stdout.decode("utf-8", "surrogateescape")


def write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode())


def make_changed_repo(root: Path) -> Path:
    """A repository whose HEAD holds BEFORE and whose index holds AFTER (staged)."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, BEFORE)
    (root / "logo.bin").write_bytes(LOGO_BEFORE)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "before")
    (root / "pkg").mkdir()
    git(root, "mv", "mover.py", "pkg/moved.py")
    (root / "gone.txt").unlink()
    write(root, AFTER)
    (root / "logo.bin").write_bytes(LOGO_AFTER)
    (root / "script.sh").chmod(0o755)
    git(root, "add", "-A")
    return root


@pytest.fixture(scope="module")
def changed_repo(tmp_path_factory) -> Path:
    return make_changed_repo(tmp_path_factory.mktemp("impact") / "repo")


def by_path(patch: Patch) -> dict[str, FileDiff]:
    return {diff.path: diff for diff in patch.files}


def assert_applies(patch: Patch) -> None:
    """Every text file of `patch` applied to its BEFORE content gives its AFTER content."""
    for diff in patch.files:
        if diff.binary:
            continue
        old = BEFORE.get(diff.old_path, "") if diff.old_path else ""
        new = AFTER.get(diff.new_path, "") if diff.new_path else ""
        assert apply(old, diff) == new, diff.path


def test_git_diff_with_renames_and_binary(changed_repo):
    text = git(changed_repo, "diff", "--cached", "-M", "--binary")
    assert '"a/sp\\303\\244ce.txt"' in text  # the non-ASCII name is quoted
    assert "GIT binary patch" in text
    files = by_path(parse_patch(text))

    assert set(files) == {*AFTER, "gone.txt", "logo.bin"}
    moved = files["pkg/moved.py"]
    assert (moved.status, moved.old_path, moved.new_path) == ("renamed", "mover.py", "pkg/moved.py")
    assert moved.similarity is not None and 50 <= moved.similarity < 100
    gone = files["gone.txt"]
    assert (gone.status, gone.old_path, gone.new_path) == ("deleted", "gone.txt", None)
    fresh = files["fresh.txt"]
    assert (fresh.status, fresh.old_path, fresh.new_path) == ("added", None, "fresh.txt")
    assert files["empty_added.txt"].status == "added" and files["empty_added.txt"].hunks == []
    assert (files["script.sh"].status, files["script.sh"].hunks) == ("mode", [])
    assert files["logo.bin"].binary and files["logo.bin"].status == "modified"
    assert files["logo.bin"].hunks == []
    for path in ("src/shop.py", "my notes.txt", "späce.txt", "windows.txt", "no_newline.txt"):
        assert files[path].status == "modified" and files[path].old_path == path
    assert not files["src/shop.py"].binary
    assert files["src/shop.py"].hunks[0].header.startswith("def place_order")
    assert_applies(parse_patch(text))
    assert_applies(parse_patch(text.encode("utf-8", "surrogateescape")))


def test_git_diff_without_renames_and_binary_marker(changed_repo):
    text = git(changed_repo, "diff", "--cached", "--no-renames")
    files = by_path(parse_patch(text))
    assert files["mover.py"].status == "deleted"
    assert files["pkg/moved.py"].status == "added"
    logo = files["logo.bin"]
    assert (logo.binary, logo.status, logo.hunks) == (True, "modified", [])
    assert_applies(parse_patch(text))
    with pytest.raises(PatchError, match="binary"):
        apply("", logo)


def test_git_diff_of_the_work_tree(tmp_path):
    root = make_changed_repo(tmp_path / "repo")
    git(root, "reset", "-q")  # unstage: `git diff` compares the work tree to the index
    (root / "src/shop.py").write_text(AFTER["src/shop.py"].replace("import os", "import sys"))
    files = by_path(parse_patch(git(root, "diff")))
    assert set(files) == {
        "src/shop.py", "mover.py", "gone.txt", "script.sh", "my notes.txt", "späce.txt",
        "windows.txt", "no_newline.txt", "gains_newline.txt", "loses_newline.txt", "logo.bin",
    }  # fmt: skip
    expected = AFTER["src/shop.py"].replace("import os", "import sys")
    assert apply(BEFORE["src/shop.py"], files["src/shop.py"]) == expected
    assert apply(BEFORE["mover.py"], files["mover.py"]) == ""


def test_format_patch_mail(changed_repo, tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(changed_repo, root, symlinks=True)
    message = "Change many files\n\n- a bullet\n  indented\n--- not a file header\n"
    git(root, "commit", "-q", "-m", message)
    text = git(root, "format-patch", "-1", "--stdout", "-M", "--binary")
    assert text.startswith("From ") and "Subject: [PATCH] Change many files" in text
    assert "\n-- \n" in text  # the signature after the last hunk
    patch = parse_patch(text)
    files = by_path(patch)
    assert files["pkg/moved.py"].status == "renamed"
    assert files["gone.txt"].status == "deleted"
    assert files["logo.bin"].binary
    assert_applies(patch)
    assert_applies(parse_patch(text.replace("\n", "\r\n")))  # mailed with CRLF


@NEEDS_DIFF
def test_diff_u_of_two_files(tmp_path):
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text(BEFORE["src/shop.py"])
    new.write_text(AFTER["src/shop.py"])
    done = subprocess.run(["diff", "-u", str(old), str(new)], capture_output=True, text=True)
    assert done.returncode == 1 and "\t" in done.stdout.splitlines()[0]  # with a timestamp
    (diff,) = parse_patch(done.stdout).files
    assert (diff.old_path, diff.new_path, diff.status) == (str(old), str(new), "modified")
    assert apply(BEFORE["src/shop.py"], diff) == AFTER["src/shop.py"]


@NEEDS_DIFF
def test_diff_ru_of_two_trees(tmp_path):
    olds = {"kept.txt": "a\nb\nc\n", "gone.txt": "bye\n", "sub/x.py": "x = 1\n"}
    news = {"kept.txt": "a\nB\nc\n", "new.txt": "hello\n", "sub/x.py": "x = 2\n"}
    write(tmp_path / "a", olds)
    write(tmp_path / "b", news)
    (tmp_path / "a" / "pic.bin").write_bytes(b"\x00\x01")
    (tmp_path / "b" / "pic.bin").write_bytes(b"\x00\x02")
    done = subprocess.run(["diff", "-ruN", "a", "b"], cwd=tmp_path, capture_output=True)
    assert done.returncode == 1
    files = by_path(parse_patch(done.stdout))
    assert set(files) == {"kept.txt", "gone.txt", "new.txt", "sub/x.py", "pic.bin"}
    assert files["pic.bin"].binary
    for path, diff in files.items():
        if not diff.binary:
            assert apply(olds.get(path, ""), diff) == news.get(path, ""), path


def test_plain_diff_with_dev_null():
    text = (
        "--- /dev/null\t2024-01-01 00:00:00\n+++ b/added.txt\t2024-01-02 00:00:00\n"
        "@@ -0,0 +1,2 @@\n+one\n+two\n"
        "--- a/removed.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-only\n"
    )
    added, removed = parse_patch(text).files
    assert (added.old_path, added.new_path, added.status) == (None, "added.txt", "added")
    assert (removed.old_path, removed.new_path, removed.status) == ("removed.txt", None, "deleted")
    assert apply("", added) == "one\ntwo\n"
    assert apply("only\n", removed) == ""
    assert removed.path == "removed.txt"


def numbered(count: int, skip: int = 0) -> str:
    return "".join(f"line {n}\n" for n in range(1, count + 1) if n != skip)


def no_index_diff(tmp_path: Path, old: str, new: str, *options: str) -> FileDiff:
    (tmp_path / "old").write_text(old)
    (tmp_path / "new").write_text(new)
    text = git(tmp_path, "diff", "--no-index", *options, "old", "new", check=False)
    (diff,) = parse_patch(text).files
    assert apply(old, diff) == new
    return diff


def test_hunk_moved_by_an_offset_still_applies(tmp_path):
    old, new = numbered(40), numbered(40).replace("line 20\n", "line twenty\n")
    new = new.replace("line 30\n", "line 30\nline 30.5\n")
    diff = no_index_diff(tmp_path, old, new)
    assert len(diff.hunks) == 2
    header = "".join(f"header {n}\n" for n in range(5))
    assert apply(header + old, diff) == header + new
    shortened = old.replace("line 2\nline 3\nline 4\n", "")
    assert apply(shortened, diff) == new.replace("line 2\nline 3\nline 4\n", "")


def test_hunk_whose_context_is_gone_raises_mismatch(tmp_path):
    old, new = numbered(40), numbered(40).replace("line 20\n", "line twenty\n")
    diff = no_index_diff(tmp_path, old, new)
    (hunk,) = diff.hunks
    with pytest.raises(PatchMismatch, match=rf"new: hunk 1 .*old line {hunk.old_start}\b"):
        apply(old.replace("line 19\n", "line nineteen\n"), diff)
    with pytest.raises(PatchMismatch):
        apply(old.replace("line 20\n", "line 20 edited\n"), diff)
    with pytest.raises(PatchMismatch):
        apply("", diff)


def test_fuzz_lines_leave_out_outer_context(tmp_path):
    old, new = numbered(40), numbered(40).replace("line 20\n", "line twenty\n")
    diff = no_index_diff(tmp_path, old, new)
    edited = old.replace("line 17\n", "line seventeen\n")  # the hunk's first context line
    with pytest.raises(PatchMismatch):
        apply(edited, diff)
    assert apply(edited, diff, fuzz_lines=1) == new.replace("line 17\n", "line seventeen\n")
    with pytest.raises(ValueError):
        apply(old, diff, fuzz_lines=-1)


def test_crlf_is_preserved(tmp_path):
    old = "a\r\nb\r\nc\r\n"
    new = "a\r\nB\r\nc\r\nd\r\n"
    diff = no_index_diff(tmp_path, old, new)
    assert diff.hunks[0].lines[1] == ("-", "b\r")
    lf_diff = no_index_diff(tmp_path, old.replace("\r", ""), new.replace("\r", ""))
    assert apply(old, lf_diff) == new  # an LF diff keeps a CRLF file CRLF
    lf_text = git(tmp_path, "diff", "--no-index", "old", "new", check=False)
    (mailed,) = parse_patch(lf_text.replace("\n", "\r\n")).files  # a CRLF-sent patch
    assert mailed.hunks[0].lines[1] == ("-", "b")
    assert apply(old, mailed) == new
    assert apply(old.replace("\r", ""), mailed) == new.replace("\r", "")


def test_no_newline_at_end_of_file(tmp_path):
    for old, new in [("a\nb", "a\nc"), ("a\nb", "a\nb\n"), ("a\nb\n", "a\nb"), ("", "z")]:
        diff = no_index_diff(tmp_path, old, new)
        assert "\\" not in [tag for hunk in diff.hunks for tag, _ in hunk.lines]
    hunk = no_index_diff(tmp_path, "a\nb", "a\nc").hunks[0]
    assert hunk.old_missing_newline and hunk.new_missing_newline
    hunk = no_index_diff(tmp_path, "a\nb\n", "a\nb").hunks[0]
    assert not hunk.old_missing_newline and hunk.new_missing_newline


@pytest.mark.parametrize("context", ["-U3", "-U0"])
def test_changed_lines(tmp_path, context):
    old = numbered(10)
    modified = no_index_diff(tmp_path, old, old.replace("line 5\n", "line five\n"), context)
    assert (modified.changed_old_lines(), modified.changed_new_lines()) == ({5}, {5})
    assert modified.hunks[0].old_lines() == [5] and modified.hunks[0].new_lines() == [5]

    inserted = no_index_diff(tmp_path, old, old.replace("line 5\n", "line 5\nnew\nnew\n"), context)
    assert inserted.changed_old_lines() == {5, 6}  # the lines either side of the insertion
    assert inserted.changed_new_lines() == {6, 7}
    assert inserted.hunks[0].old_lines() == [] and inserted.hunks[0].new_lines() == [6, 7]

    deleted = no_index_diff(tmp_path, old, numbered(10, skip=5).replace("line 6\n", ""), context)
    assert deleted.changed_old_lines() == {5, 6}
    assert deleted.changed_new_lines() == {4, 5}  # the lines either side of where it happened
    assert deleted.hunks[0].old_lines() == [5, 6] and deleted.hunks[0].new_lines() == []

    appended = no_index_diff(tmp_path, old, old + "more\n", context)
    assert appended.changed_new_lines() == {11}
    assert appended.changed_old_lines() == ({10} if context == "-U3" else {10, 11})
    first_deleted = no_index_diff(tmp_path, old, numbered(10, skip=1), context)
    assert (first_deleted.changed_old_lines(), first_deleted.changed_new_lines()) == ({1}, {1})


def test_changed_lines_of_added_and_deleted_files(changed_repo):
    files = by_path(parse_patch(git(changed_repo, "diff", "--cached", "-M")))
    assert files["fresh.txt"].changed_old_lines() == set()
    assert files["fresh.txt"].changed_new_lines() == {1, 2}
    assert files["gone.txt"].changed_old_lines() == {1, 2}
    assert files["gone.txt"].changed_new_lines() == set()


def test_undecodable_bytes(tmp_path):
    old, new = "caf\udce9\n".encode("utf-8", "surrogateescape"), b"caf\xe9 cr\xe8me\n"
    (tmp_path / "old").write_bytes(old)
    (tmp_path / "new").write_bytes(new)
    text = subprocess.run(
        ["git", *GIT_SETTINGS, "diff", "--no-index", "old", "new"],
        cwd=tmp_path,
        capture_output=True,
        env=GIT_ENV,
    ).stdout
    (diff,) = parse_patch(text).files
    result = apply(old.decode("utf-8", "surrogateescape"), diff)
    assert result.encode("utf-8", "surrogateescape") == new
    with pytest.raises(PatchError, match="no diff found"):
        parse_patch(b"\xff\xfe\x00\x80 not a diff \xc3")


def test_empty_input_is_an_empty_patch():
    for empty in ("", "\n\n  \t\n", b"", b"  \r\n", "\ufeff"):
        patch = parse_patch(empty)
        assert patch == Patch([]) and patch.empty
    assert not parse_patch("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n").empty


BAD_PATCHES = {
    "no diff found": ["hello world", "Subject: no diff\n\njust prose\n", "---\n+++\n", "@@\n"],
    "header does not parse": [
        "--- a/x\n+++ b/x\n@@ -1,x +1 @@\n-a\n",
        "--- a/x\n+++ b/x\n@@ -1 +1\n-a\n",
        "--- a/x\n+++ b/x\n@@ -" + "9" * 5000 + " +1 @@\n-a\n",
    ],
    r"x: hunk 2 \(@@ -5,3 \+5,3 @@\) holds 2 old and 2 new lines where its header says 3 and 3": [
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n@@ -5,3 +5,3 @@\n c\n-d\n+e\n",
    ],
    "x: hunk 1 .*has more lines than its header says": [
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n",
    ],
    "without a hunk": ["--- a/x\n+++ b/x\n", "diff --git a/x b/x\n--- a/x\n+++ b/x\nend\n"],
    "combined diffs": ["diff --cc x\n--- a/x\n+++ b/x\n@@@ -1,1 -1,1 +1,1 @@@\n- a\n"],
    "a hunk without a file header": ["@@ -1 +1 @@\n-a\n+b\n"],
    "quoted path": ['--- "a/unterminated\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n'],
    "/dev/null on both sides": ["--- /dev/null\n+++ /dev/null\n@@ -0,0 +0,0 @@\n"],
    "not followed by a `\\+\\+\\+ ` line": ["diff --git a/x b/x\n--- a/x\n@@ -1 +1 @@\n"],
    "file names cannot be told": ["diff --git x\n"],
}


@pytest.mark.parametrize(
    ("message", "text"),
    [(message, text) for message, texts in BAD_PATCHES.items() for text in texts],
)
def test_bad_patches_raise_patch_error(message, text):
    with pytest.raises(PatchError, match=message) as raised:
        parse_patch(text)
    assert raised.value.kind == ErrorKind.INVALID


def test_too_large_patch():
    for data in (b" " * (MAX_PATCH_BYTES + 1), "ä" * (MAX_PATCH_BYTES // 2 + 1)):
        with pytest.raises(PatchError, match="larger than 20 MiB") as raised:
            parse_patch(data)
        assert raised.value.kind == ErrorKind.TOO_LARGE


def mutations(text: str, rng: random.Random) -> str:
    """`text` truncated, with lines dropped, doubled or swapped, or characters replaced."""
    lines = text.splitlines(keepends=True)
    choice = rng.randrange(5)
    if choice == 0:
        return text[: rng.randrange(len(text))]
    index = rng.randrange(len(lines))
    if choice == 1:
        del lines[index]
    elif choice == 2:
        lines.insert(index, lines[rng.randrange(len(lines))])
    elif choice == 3:
        other = rng.randrange(len(lines))
        lines[index], lines[other] = lines[other], lines[index]
    else:
        chars = list(lines[index])
        for _ in range(rng.randint(1, 3)):
            chars[rng.randrange(len(chars))] = rng.choice(' +-@\\"/,0123456789\t\r\nab')
        lines[index] = "".join(chars)
    return "".join(lines)


def test_fuzzed_patches_raise_only_patch_error(changed_repo):
    text = git(changed_repo, "diff", "--cached", "-M", "--binary")
    rng = random.Random(20240601)
    parsed = 0
    for _ in range(600):
        mutated = text
        for _ in range(rng.randint(1, 4)):
            mutated = mutations(mutated, rng) or mutated
        try:
            patch = parse_patch(mutated)
        except PatchError:
            continue
        parsed += 1
        for diff in patch.files:
            old = BEFORE.get(diff.old_path or "", "")
            with contextlib.suppress(PatchError):
                assert isinstance(apply(old, diff, fuzz_lines=rng.randint(0, 2)), str)
    assert parsed > 0
    for _ in range(300):
        garbage = bytes(rng.randrange(256) for _ in range(rng.randint(1, 400)))
        with contextlib.suppress(PatchError):
            parse_patch(garbage)
    alphabet = 'abc xyz-+@\\"/,:0123456789\t\n'
    for _ in range(300):
        garbage_text = "q" + "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 300)))
        with pytest.raises(PatchError):
            parse_patch(garbage_text)


def test_git_quoted_names_on_either_side(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    body = "".join(f"row {n}\n" for n in range(10))
    other = "".join(f"other {n}\n" for n in range(10))
    write(root, {"tab\there.txt": body, "plain.txt": other})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "before")
    git(root, "mv", "tab\there.txt", "plain2.txt")
    git(root, "mv", "plain.txt", 'quote"d \\ back.txt')
    write(root, {"plain2.txt": body + "more\n", 'quote"d \\ back.txt': other + "end!\n"})
    git(root, "add", "-A")
    text = git(root, "diff", "--cached", "-M")
    assert 'diff --git "a/tab\\there.txt" b/plain2.txt' in text
    assert 'diff --git a/plain.txt "b/quote\\"d \\\\ back.txt"' in text
    files = by_path(parse_patch(text))
    assert files["plain2.txt"].old_path == "tab\there.txt"
    assert files['quote"d \\ back.txt'].old_path == "plain.txt"
    assert apply(body, files["plain2.txt"]) == body + "more\n"
    assert apply(other, files['quote"d \\ back.txt']) == other + "end!\n"
