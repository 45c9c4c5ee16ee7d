"""A visitor dispatching on node class names."""
