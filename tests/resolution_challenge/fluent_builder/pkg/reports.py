from pkg.query import Query, QueryBuilder


def active_users_sql(limit: int) -> str:
    return QueryBuilder("users").where("active = 1").limit(limit).build().to_sql()


def recent_orders() -> Query:
    builder = QueryBuilder("orders")
    builder = builder.where("created_at > now() - interval '1 day'")
    return builder.limit(50).build()


def sorted_products() -> Query:
    return QueryBuilder("products").order_by("name").build()
