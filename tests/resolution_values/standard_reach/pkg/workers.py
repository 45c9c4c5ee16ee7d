import json
import logging
import socketserver
import threading


class Worker(threading.Thread):
    def run(self):
        return self.work()

    def work(self):
        return 1

    def describe(self):
        return "worker"


class Sink(logging.Handler):
    def emit(self, record):
        return self.format(record)

    def format(self, record):
        return str(record)

    def close(self):
        return None


class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        return self.request

    def finish(self):
        return None

    def describe(self):
        return "echo"


class Encoder(json.JSONEncoder):
    def default(self, o):
        return str(o)

    @property
    def indent(self):
        return self._indent

    @indent.setter
    def indent(self, value):
        self._indent = value


def launch(worker: Worker):
    worker.start()


def deliver(sink: Sink, record):
    sink.handle(record)


def serve(request, address, server):
    return Echo(request, address, server)


def encoder():
    return Encoder()
