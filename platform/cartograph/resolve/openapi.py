"""An OpenAPI document's operations as HTTP rows (`FileResolution.http`, the layouts of
`cartograph.resolve.http`): one router per document, prefixed by its servers' base path, and
a route per operation. A document names no code, so its routes have no handler: they are
what the requests of other repositories reach when a service's code is not indexed, or not
read (a Go or Java service that publishes its document). A route the repository's code
declares too (the same method and path) is the code's: the services stage keeps one
(`index.services.compose_routes`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from cartograph.resolve.core import FileResolution, module_symbol
from cartograph.resolve.family import Sources
from cartograph.resolve.http import route_path

FRAMEWORK = "openapi"


class OpenApiProgram:
    """Resolves the OpenAPI documents of one repository (each on its own)."""

    def __init__(self, repo: str, paths: Iterable[str], load: Callable[[str], dict | None]):
        self.repo = repo
        self.paths = set(paths)
        self.load = load

    @classmethod
    def for_sources(cls, sources: Sources) -> OpenApiProgram:
        return cls(sources.repo, sources.paths("openapi"), sources.facts)

    def loaded(self) -> int:
        return 0

    def forget(self) -> None:
        """Nothing is kept between files."""

    def resolve_file(self, path: str) -> FileResolution:
        facts = self.load(path)
        if facts is None:
            return FileResolution(path, path, [], [], [], set())
        symbols = [module_symbol(self.repo, path, facts.get("lines", 1))]
        resolution = FileResolution(path, path, symbols, [], [], set())
        routes = facts.get("routes") or []
        if routes:
            key = f"{FRAMEWORK}:{path}"
            rows: list[list] = [["router", key, FRAMEWORK, route_path(FRAMEWORK, facts["base"])]]
            for method, template, line, _operation in routes:
                rows.append(
                    ["route", key, [method], route_path(FRAMEWORK, template), "", line, FRAMEWORK]
                )
            resolution.http = sorted(rows, key=repr)
        return resolution
