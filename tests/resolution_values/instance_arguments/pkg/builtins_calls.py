import atexit


def parse(line):
    return line.strip()


def rank(word):
    return len(word)


def build():
    return []


def shutdown():
    return None


def tidy(text):
    return text


def flush():
    return None


apply = lambda f: f()  # noqa: E731


def main(lines):
    parsed = list(map(parse, lines))
    best = max(parsed, key=rank)
    atexit.register(shutdown)
    made = apply(build)
    first, *middle, last = parse, tidy, build, flush
    last()
    middle[0]("x")
    return best, made, first
