import json


class Response:
    def __init__(self, status: int, body: bytes):
        self.status = status
        self.body = body

    def json(self) -> dict:
        return json.loads(self.body)


class HttpClient:
    def __init__(self, base_url: str):
        self.base_url = base_url

    async def fetch(self, path: str) -> Response:
        return Response(200, b"{}")

    async def close(self) -> None:
        self.base_url = ""


class ResponseCache:
    async def fetch(self, key: str) -> bytes:
        return b""


class Session:
    def __init__(self, client: HttpClient):
        self.client = client

    async def __aenter__(self) -> "Session":
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        await self.client.close()

    async def get_json(self, path: str) -> dict:
        response = await self.client.fetch(path)
        return response.json()
