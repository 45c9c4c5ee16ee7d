from pkg.handlers import Batch, Hook, JsonHandler, XmlHandler


def process(handler, payload):
    return handler.handle(payload)


def drain(batch):
    for item in batch:
        print(item)


def notify(hook, event):
    hook(event)


class Pipeline:
    def __init__(self, handler):
        self.handler = handler

    def run(self, payload):
        return self.handler.handle(payload)

    def stop(self):
        self.finish()

    def finish(self):
        return None


def main():
    process(JsonHandler(), {})
    default = XmlHandler()
    Pipeline(default).run("<a/>")
    drain(Batch([1, 2]))
    notify(Hook(), "start")
