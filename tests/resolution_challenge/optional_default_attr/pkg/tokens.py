from pkg.clock import Clock, SystemClock


class TokenService:
    def __init__(self, clock: Clock | None = None, ttl_seconds: int = 3600):
        self.clock = clock or SystemClock()
        self.ttl_seconds = ttl_seconds

    def issue(self, user_id: int) -> dict:
        issued = self.clock.now()
        return {"sub": user_id, "iat": issued.timestamp(), "ttl": self.ttl_seconds}

    def is_expired(self, token: dict) -> bool:
        return self.clock.now().timestamp() > token["iat"] + token["ttl"]


class AuditTrail:
    def __init__(self, clock: Clock | None = None):
        self.clock = clock if clock is not None else SystemClock()
        self.entries: list[tuple[float, str]] = []

    def record(self, message: str) -> None:
        self.entries.append((self.clock.now().timestamp(), message))


def default_tokens() -> TokenService:
    return TokenService(ttl_seconds=900)
