"""What a GraphQL query may return at most, worked out before it runs.

Depth, alias and token limits do not bound an answer: `callers(first: 100)` inside
`callers(first: 100)` inside `callers(first: 100)` is three levels deep and asks for a million
symbols. So each query is costed as the number of objects its answer may hold — a list field
multiplies what is under it by its size (its `first` argument, as given, through a variable, or
by default; a fixed estimate for lists without one) — and a query over MAX_COST is refused
before anything is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cartograph.query.hotspots import OWNERS_PER_SPOT
from cartograph.team import RECENT_ACTIVITY
from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
    get_named_type,
    value_from_ast_untyped,
)

MAX_COST = 20_000
SIZE_ARGUMENTS = ("first",)  # the argument that says how long a list field's answer is
# lists that take no size: what they may hold at most (a trace holds at most MAX_TRACE_STEPS)
UNSIZED_LISTS = {
    ("Trace", "steps"): 1_000,
    ("Query", "repositories"): 100,
    ("Query", "claims"): 200,
    # a repository among a team's: what it provides, the repositories on either side of it
    ("Repository", "provides"): 20,
    ("Repository", "providers"): 50,
    ("Repository", "consumers"): 50,
    ("Envelope", "crossings"): 50,
    # lists inside an operation's answer that it caps
    ("Hotspot", "owners"): OWNERS_PER_SPOT,
    ("SessionAtWork", "recent"): RECENT_ACTIVITY,
}
DEFAULT_LIST = 100


class CostTooHigh(ValueError):
    pass


def query_cost(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation_name: str | None,
    variables: Mapping[str, Any] | None,
) -> int:
    """The most objects the chosen operation's answer may hold."""
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    chosen = [
        op for op in operations if operation_name is None or (op.name and op.name.value == operation_name)
    ]  # fmt: skip
    if not chosen:
        return 0
    operation = chosen[0]
    root = schema.get_root_type(operation.operation)
    if root is None:
        return 0
    defaults = {
        v.variable.name.value: value_from_ast_untyped(v.default_value) if v.default_value else None
        for v in operation.variable_definitions or ()
    }
    values = {**defaults, **(variables or {})}
    walker = _Walker(fragments, values)
    return walker.selection_cost(root, operation.selection_set, frozenset())


class _Walker:
    def __init__(self, fragments: dict[str, FragmentDefinitionNode], variables: Mapping) -> None:
        self.fragments = fragments
        self.variables = variables

    def selection_cost(
        self, parent: GraphQLObjectType, selection: SelectionSetNode | None, seen: frozenset
    ) -> int:
        if selection is None:
            return 0
        total = 0
        for node in selection.selections:
            if isinstance(node, FieldNode):
                total += self.field_cost(parent, node, seen)
            elif isinstance(node, InlineFragmentNode):
                total += self.selection_cost(parent, node.selection_set, seen)
            elif isinstance(node, FragmentSpreadNode):
                name = node.name.value
                fragment = self.fragments.get(name)
                if fragment is not None and name not in seen:  # a cycle is invalid anyway
                    total += self.selection_cost(parent, fragment.selection_set, seen | {name})
        return total

    def field_cost(self, parent: GraphQLObjectType, node: FieldNode, seen: frozenset) -> int:
        definition = parent.fields.get(node.name.value)
        if definition is None:  # __typename and the like
            return 0
        kind = definition.type
        if isinstance(kind, GraphQLNonNull):
            kind = kind.of_type
        named = get_named_type(kind)
        if not isinstance(named, GraphQLObjectType):
            return 0  # a scalar or an enum (a list of them is one value)
        inner = 1 + self.selection_cost(named, node.selection_set, seen)
        if not isinstance(kind, GraphQLList):
            return inner
        return self.list_size(parent, node, definition) * inner

    def list_size(self, parent: GraphQLObjectType, node: FieldNode, definition) -> int:
        for name in SIZE_ARGUMENTS:
            if name not in definition.args:
                continue
            for argument in node.arguments or ():
                if argument.name.value == name:
                    value = argument.value
                    if isinstance(value, VariableNode):
                        given = self.variables.get(value.name.value)
                    else:
                        given = value_from_ast_untyped(value)
                    return _size(given, definition.args[name].default_value)
            return _size(None, definition.args[name].default_value)
        return UNSIZED_LISTS.get((parent.name, node.name.value), DEFAULT_LIST)


def _size(given: Any, default: Any) -> int:
    for value in (given, default):
        if isinstance(value, int) and not isinstance(value, bool):
            return max(value, 0)
    return DEFAULT_LIST
