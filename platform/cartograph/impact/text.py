"""The impact report as text: compact lines for an agent's context window, or Markdown for a
pull-request comment. Both lead with the summary and keep every section bounded."""

from __future__ import annotations

from cartograph.impact.report import Affected, Break, Impact
from cartograph.safetext import md, md_fence

SHOWN_BREAKS = 40
SHOWN_TESTS = 60
SHOWN_CHANGED = 60
SHOWN_POSSIBLE = 10
# what the text shows of each list at most (an answer cut to a budget goes on from there)
SHOWN = {
    "changed": SHOWN_CHANGED,
    "will_break": SHOWN_BREAKS,
    "tests": SHOWN_TESTS,
    "possible_tests": SHOWN_POSSIBLE,
}


def _lines(lines: list[int]) -> str:
    return ",".join(str(n) for n in lines[:5]) + ("…" if len(lines) > 5 else "")


def _break(item: Break, across: bool) -> str:
    where = f"{item.caller.repo}:" if across or item.crosses else ""
    tag = "  [other repository]" if item.crosses else ""
    return (
        f"{item.caller.qualname}  {where}{item.caller.path}:{_lines(item.lines)}  — {item.why}{tag}"
    )


def _affected(item: Affected) -> str:
    crosses = ", across repositories" if item.crosses else ""
    return (
        f"{item.symbol.qualname}  {item.symbol.repo}:{item.symbol.path}:{item.symbol.start_line}"
        f"  (depth {item.depth}, confidence {item.confidence:.2f}, via {item.via}, reaches "
        f"{item.reaches}{crosses})"
    )


def text(answer: Impact, header: str) -> str:
    """For agents: summary, then one line per item."""
    out = [header, f"# impact of {_range(answer)} in {answer.repo}: {answer.verdict}"]
    out += [f"  {line}" for line in answer.summary]
    for note in answer.notes:
        out.append(f"  note: {note}")
    if answer.changed:
        out.append("changed:")
        for item in answer.changed[:SHOWN_CHANGED]:
            detail = ""
            if item.change == "signature":
                detail = f"  {item.old_signature} → {item.new_signature}"
                detail += f"  ({item.why})" if item.why else "  (callers can keep it)"
            elif item.change == "moved":
                detail = f"  → {item.moved_to}"
            out.append(f"  {item.change:<9} {item.kind:<8} {item.qualname}  "
                       f"{item.path}:{item.line}{detail}")  # fmt: skip
        _more(out, len(answer.changed), SHOWN_CHANGED)
    if answer.will_break:
        out.append("will break:")
        across = len({b.caller.repo for b in answer.will_break}) > 1
        out += [f"  {_break(b, across)}" for b in answer.will_break[:SHOWN_BREAKS]]
        _more(out, len(answer.will_break), SHOWN_BREAKS)
    if answer.may_be_affected:
        out.append(f"may be affected ({answer.affected_total}, nearest first):")
        out += [f"  {_affected(a)}" for a in answer.may_be_affected]
        _more(out, answer.affected_total, len(answer.may_be_affected), "raise --limit")
    if answer.tests:
        out.append(f"tests to run ({answer.tests_total}):")
        for command in answer.test_commands:
            out.append(f"  [{command.repo}, {command.tests} tests] {command.command}")
        for test in answer.tests[:SHOWN_TESTS]:
            out.append(f"  {test.node}  ({test.evidence}, depth {test.depth}, reaches "
                       f"{test.reaches})")  # fmt: skip
        _more(out, len(answer.tests), SHOWN_TESTS, "--json lists them all")
    if answer.possible_tests:
        out.append(f"possibly reached, through less sure paths ({len(answer.possible_tests)}; "
                   "lower --min-confidence to run them):")  # fmt: skip
        for test in answer.possible_tests[:SHOWN_POSSIBLE]:
            out.append(f"  {test.node}  (confidence {test.confidence:.2f})")
        _more(out, len(answer.possible_tests), SHOWN_POSSIBLE, "--json lists them all")
    if answer.owners:
        out.append("owners to ask:")
        for area in answer.owners:
            people = ", ".join(f"{name or email} {share:.0%}" for email, name, share in area.owners)
            codeowners = f"; CODEOWNERS {' '.join(area.codeowners)}" if area.codeowners else ""
            out.append(f"  {area.repo}:{area.area} ({area.why}): {people or '-'}{codeowners}")
    if answer.missing:
        out.append("usually changes with it, not in the change:")
        for missing in answer.missing:
            out.append(f"  {missing.name}  (with {missing.with_}: {missing.count} times together, "
                       f"weight {missing.weight:.2f}, score {missing.score:.2f})")  # fmt: skip
    for what, source in answer.evidence.items():
        out.append(f"# {what} from: {source}")
    return "\n".join(out) + "\n"


def markdown(answer: Impact) -> str:
    """For a pull-request comment. Every string that comes from a repository (paths, names,
    test ids, notes, people) goes through `safetext.md`, commands through `md_fence`: a head
    that names a file `@org/team <img …>.py` shows that name, and pings nobody."""
    out = [f"### Cartograph impact: **{md(answer.verdict)}**", ""]
    out += [f"- {md(line)}" for line in answer.summary]
    for note in answer.notes:
        out.append(f"- _note:_ {md(note)}")
    if answer.will_break:
        out += ["", "#### Will break", "", "| caller | where | why |", "|---|---|---|"]
        for item in answer.will_break[:SHOWN_BREAKS]:
            caller = md(item.caller.qualname, code=True, cell=True)
            where = md(f"{item.caller.repo}:{item.caller.path}:{_lines(item.lines)}", code=True,
                       cell=True)  # fmt: skip
            out.append(f"| {caller} | {where} | {md(item.why, cell=True)} |")
        if len(answer.will_break) > SHOWN_BREAKS:
            out.append(f"\n_… and {len(answer.will_break) - SHOWN_BREAKS} more_")
    if answer.tests:
        out += ["", f"#### Tests to run ({answer.tests_total})", ""]
        for command in answer.test_commands:
            out += [f"{md(command.repo, code=True)} ({command.tests} tests):", "",
                    *md_fence([command.command], "sh"), ""]  # fmt: skip
    if answer.changed:
        out += ["", "<details><summary>Changed symbols</summary>", ""]
        for changed in answer.changed[:SHOWN_CHANGED]:
            extra = f" — {md(changed.why)}" if changed.why else ""
            out.append(
                f"- {md(changed.change)}: {md(changed.qualname, code=True)} "
                f"({md(f'{changed.path}:{changed.line}', code=True)}){extra}"
            )
        out += ["", "</details>"]
    if answer.may_be_affected:
        out += ["", f"<details><summary>May be affected ({answer.affected_total})</summary>", ""]
        out += [f"- {md(a.symbol.qualname, code=True)} "
                f"({md(f'{a.symbol.repo}:{a.symbol.path}:{a.symbol.start_line}', code=True)})"
                f", depth {a.depth}" for a in answer.may_be_affected]  # fmt: skip
        out += ["", "</details>"]
    if answer.owners:
        out += ["", "#### Owners to ask", ""]
        for area in answer.owners:
            people = ", ".join(md(name or email) for email, name, _share in area.owners)
            codeowners = (
                f" (CODEOWNERS: {' '.join(md(owner, code=True) for owner in area.codeowners)})"
                if area.codeowners
                else ""
            )
            out.append(
                f"- {md(f'{area.repo}:{area.area}', code=True)} ({md(area.why)}): "
                f"{people or '-'}{codeowners}"
            )
    if answer.missing:
        out += ["", "#### Usually changes with this, not in the change", ""]
        out += [
            f"- {md(m.name, code=True)} (with {md(m.with_, code=True)}, {m.count} times together)"
            for m in answer.missing
        ]
    return "\n".join(out) + "\n"


def _range(answer: Impact) -> str:
    if answer.base or answer.head:
        return f"{answer.base[:12]}..{answer.head[:12]}"
    return "the patch"


def _more(out: list[str], total: int, shown: int, hint: str = "--json lists them all") -> None:
    if total > shown:
        out.append(f"  … {total - shown} more ({hint})")
