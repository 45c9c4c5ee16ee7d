from pkg.sessions import Session, open_replica, open_session


def count_users():
    session = open_session()
    return session.query("SELECT count(*) FROM users")


def ping():
    return open_session().query("SELECT 1")


def nightly_report(pool):
    session: Session = pool.acquire()
    return session.query("SELECT * FROM reports")


def migrate():
    session = open_replica()
    version = session.query("SELECT version FROM meta")
    session = open_session()
    session.query("ALTER TABLE users ADD COLUMN age INT")
    session.close()
    return version
