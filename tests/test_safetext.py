"""`cartograph.safetext`: a repository's strings shown as they are — on a terminal with every
control character visible, in Markdown (rendered by cmark-gfm, GitHub's own parser) exactly,
wherever the string stands: a list item, a table cell, a code span."""

from __future__ import annotations

import html
import re

import cmarkgfm
import pytest
from cartograph.safetext import md, md_fence, visible

NASTY = [
    "plain_name",
    "@everyone please look #12",
    "a|b \\| c\\|d",
    "ends with a backslash\\",
    "`one` ``two`` ```three```",
    "` starts and ends with a tick `",
    "<script>alert(1)</script> &amp; &#64;x",
    "[link](https://evil.example) <https://evil.example> www.evil.example",
    "*em* _u_ __init__ ~~gone~~ $x$",
    "# heading",
    "1. first",
    "- item",
    "> quote",
    "line one\nline two\r\n\ttab \x1b[2J\x07 \x9b31m \x7f",
]


def _cells(markdown: str) -> list[str]:
    """The text of each table cell (and list item) of rendered Markdown."""
    rendered = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=cmarkgfm.Options.CMARK_OPT_UNSAFE
    )
    assert "<a " not in rendered and "<script" not in rendered and "<img" not in rendered
    found = re.findall(r"<(?:td|li)>(.*?)</(?:td|li)>", rendered, re.S)
    return [html.unescape(re.sub(r"</?(?:code|p)>", "", cell)).replace("\u2060", "")
            for cell in found]  # fmt: skip


@pytest.mark.parametrize("text", NASTY)
def test_md_shows_exactly_the_string_wherever_it_stands(text):
    expected = visible(text)
    table = (
        "| a | b |\n|---|---|\n"
        f"| {md(text, cell=True)} | {md(text, code=True, cell=True)} |\n\n"
        f"- {md(text)}\n- {md(text, code=True)}\n"
    )
    assert _cells(table) == [expected] * 4


def test_md_fence_cannot_be_closed_from_inside():
    lines = ["python -m pytest 'a```b'", "````", "```\n@everyone"]
    block = "\n".join(md_fence(lines, "sh")) + "\nafter @x\n"
    rendered = cmarkgfm.github_flavored_markdown_to_html(block)
    [code] = re.findall(r"<pre[^>]*><code[^>]*>(.*?)</code></pre>", rendered, re.S)
    assert html.unescape(code).splitlines() == [visible(line) for line in lines]
    assert "<p>after @x</p>" in rendered


def test_visible_writes_control_characters_as_escapes():
    assert visible("a\x1b[31mred\x1b[0m\x07\x7f\x9b\x00") == (
        "a\\x1b[31mred\\x1b[0m\\x07\\x7f\\x9b\\x00"
    )
    assert visible("one\ntwo\tthree\r") == "one\\ntwo\\tthree\\r"
    assert visible("one\ntwo\tthree\r", keep="\n\t") == "one\ntwo\tthree\\r"
    assert visible("café — ünïcode ✓") == "café — ünïcode ✓"
