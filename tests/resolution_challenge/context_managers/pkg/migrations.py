from pkg.db import Pool, Transaction


def current_version(dsn: str) -> int:
    with Pool(dsn) as conn:
        rows = conn.execute("SELECT version FROM schema_meta")
    return rows[0]


def seed(dsn: str) -> None:
    with Pool(dsn) as conn, Transaction(conn) as tx:
        tx.insert("roles", {"name": "admin"})
        conn.close()
