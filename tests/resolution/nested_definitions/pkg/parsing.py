def parse_document(text):
    class Node:
        def __init__(self, tokens):
            self.tokens = tokens

        def head(self):
            return self.tokens[0] if self.tokens else None

    def tokenize(line):
        return line.split()

    def parse_line(line):
        node = Node(tokenize(line))
        return node.head()

    return [parse_line(line) for line in text.splitlines()]


class Formatter:
    def format_all(self, rows):
        def format_row(row):
            return self.pad(str(row))

        return [format_row(row) for row in rows]

    def pad(self, text):
        return f"{text:<20}"
