"""Git history in the graph: commits, people, touches, co-change and ownership."""
