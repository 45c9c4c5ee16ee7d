"""The index format: a digest of the sources of the parser, its queries and the resolver. A
repository indexed by another version is rebuilt once, so no answer mixes two versions' rules."""

from __future__ import annotations

import hashlib
from pathlib import Path

from cartograph import languages

# paths relative to the `cartograph` folder of platform/ (a namespace package: no __init__)
INDEX_FORMAT_SOURCES = (
    "languages.py",
    "parsing/facts.py",
    "parsing/python.py",
    "parsing/services.py",
    "parsing/queries/python.scm",
    "parsing/ecma.py",
    "parsing/queries/ecma.scm",
    "parsing/queries/ecma-typescript.scm",
    "parsing/queries/ecma-javascript.scm",
    "parsing/queries/ecma-jsx.scm",
    "parsing/tags.py",
    "parsing/styles.py",
    *(f"parsing/queries/tags/{name}.scm" for name in languages.names("generic")),
    "resolve/core.py",
    "index/flows.py",
    "resolve/mro.py",
    "resolve/python.py",
    "resolve/modules.py",
    "resolve/ecma.py",
    "resolve/generic.py",
    "resolve/styles.py",
    "index/crossrepo.py",
    "resolve/services.py",
    "resolve/http.py",
    "index/services.py",
    *sorted({f"resolve/{languages.BY_NAME[name].rules}.py" for name in languages.names("generic")}),
)
PACKAGE = Path(__file__).resolve().parent.parent  # platform/cartograph


def _index_format() -> str:
    digest = hashlib.sha256()
    for part in INDEX_FORMAT_SOURCES:
        source = PACKAGE / part
        digest.update(source.read_bytes() if source.is_file() else part.encode())
    return f"1-{digest.hexdigest()[:16]}"


INDEX_FORMAT = _index_format()
