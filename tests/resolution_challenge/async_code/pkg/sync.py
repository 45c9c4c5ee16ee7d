import asyncio

from pkg.http import HttpClient, Session


def session(base_url: str) -> Session:
    return Session(HttpClient(base_url))


async def load_profile(client: HttpClient, user_id: int) -> dict:
    response = await client.fetch(f"/users/{user_id}")
    return response.json()


async def load_orders(user_id: int) -> dict:
    async with session("https://shop.example.com") as s:
        return await s.get_json(f"/orders?user={user_id}")


async def sync_user(client: HttpClient, user_id: int) -> list:
    profile, orders = await asyncio.gather(load_profile(client, user_id), load_orders(user_id))
    return [profile, orders]


def main() -> None:
    client = HttpClient("https://api.example.com")
    asyncio.run(sync_user(client, 42))
