from pkg.web import Flask

app = Flask(__name__)


def render(template):
    return template


@app.route("/")
def index():
    return render("index.html")


@app.route("/about")
def about():
    return render("about.html")


def health():
    return "ok"


def not_a_view():
    return "never routed"


app.add_url_rule("/health", view_func=health)


def handle(path):
    return app.dispatch_request(path)
