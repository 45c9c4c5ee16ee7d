from pkg.client import default


def notify(message):
    return default.send(message)


def main():
    notify("starting")
    return notify("done")


if __name__ == "__main__":
    main()
