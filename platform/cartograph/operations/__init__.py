"""The operation catalogue: every operation declared once (see docs/architecture.md); the CLI,
the MCP tools and the REST routes are derived from it."""

from cartograph.operations.base import REQUIRED, Cli, Operation, Param, Rest, Services
from cartograph.operations.catalogue import CATALOGUE, COMMAND_GROUPS, operation
from cartograph.operations.values import InvalidValue

__all__ = [
    "CATALOGUE",
    "COMMAND_GROUPS",
    "REQUIRED",
    "Cli",
    "InvalidValue",
    "Operation",
    "Param",
    "Rest",
    "Services",
    "operation",
]
