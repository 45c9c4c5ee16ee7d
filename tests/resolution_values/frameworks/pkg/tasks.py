import dramatiq
from celery import Celery, shared_task

app = Celery("pkg")


@app.task
def rebuild(target):
    return target


@shared_task(bind=True)
def notify(self, user):
    return user


@dramatiq.actor
def index_page(url):
    return url


def plain(x):
    return x


def schedule():
    rebuild.delay("docs")
    notify.apply_async(("ann",), countdown=10)
    signature = rebuild.s("site")
    index_page.send("/home")
    rebuild.backend.get("x")
    return signature
