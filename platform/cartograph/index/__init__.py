"""The index pipeline: discover → plan → parse changed files → dependency plan → resolve →
write → flows (incremental).

`index_repository` (pipeline.py) takes the repository's index lock (locks.py) and runs the
stages, each a function returning a value:

1. plan.py — stored file states + discovered files → what to parse, what is unchanged,
   renamed, touched or deleted (pure: no store, no file system);
2. parse.py — sources → facts on a process pool (the workers get the files as arguments);
3. dependents.py — changed interfaces and module names → the stored files to re-resolve;
4. resolve.py — facts → `FileResolution`s in batches (forked workers get their job as an
   argument, through the fork);
5. write.py — each file in one transaction with everything it contributes (its symbols, its
   outgoing edges, its unresolved calls, its imports), so an interrupted run leaves every file
   either fully old or fully new; then the repository record;
6. flows.py — between the writes and the repository record: every file's flow rows → the
   calls through values no single file decides (callbacks, decorators' wrappers, registries,
   dispatch to overrides), written as the derived edges of the files they start in.

After the changed files, every file whose resolution consulted a changed module (recorded as
`deps` when it was resolved) is re-resolved, so no edge goes stale — in this repository and,
after its lock is released, in the other repositories that bind into it (crossrepo.py).
"""

from cartograph.index.format import INDEX_FORMAT, INDEX_FORMAT_SOURCES
from cartograph.index.locks import LOCK_REFRESH_AFTER, LOCK_TTL, repository_lock
from cartograph.index.parse import PARALLEL_MIN_FILES, PARSE_CHUNK
from cartograph.index.pipeline import (
    CONFIG_FILES,
    default_repo_name,
    forget_repository,
    index_repository,
    refresh_consumers,
)
from cartograph.index.resolve import WRITE_BATCH, resolution_digest
from cartograph.index.results import IndexingError, IndexResult

__all__ = [
    "CONFIG_FILES",
    "INDEX_FORMAT",
    "INDEX_FORMAT_SOURCES",
    "LOCK_REFRESH_AFTER",
    "LOCK_TTL",
    "PARALLEL_MIN_FILES",
    "PARSE_CHUNK",
    "WRITE_BATCH",
    "IndexResult",
    "IndexingError",
    "default_repo_name",
    "forget_repository",
    "index_repository",
    "refresh_consumers",
    "repository_lock",
    "resolution_digest",
]
