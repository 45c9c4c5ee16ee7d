def run(item):
    item.ihook.pytest_runtest_setup(item=item)


class Session:
    def __init__(self, config):
        self.config = config

    def start(self):
        self.config.hook.pytest_sessionstart(session=self)
        hook = self.config.hook
        hook.pytest_collection(session=self)

    def configure(self):
        self.config.hook.pytest_configure.call_historic(kwargs=dict(config=self))
