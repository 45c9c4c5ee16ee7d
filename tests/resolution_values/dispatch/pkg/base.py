class Pipeline:
    def run(self):
        self.step()
        return self.finish()

    def step(self):
        return "base step"

    def finish(self):
        return "base finish"

    def later(self):
        def deferred():
            return self.step()

        def shadowed(self):
            return self.step()

        return deferred, shadowed


class Unrelated:
    def step(self):
        return "unrelated"


class Blueprint:
    def register(self, app):
        app.add_url_rule("/static", view_func=self.send_static_file)


class FlaskBlueprint(Blueprint):
    def send_static_file(self, filename):
        return filename
