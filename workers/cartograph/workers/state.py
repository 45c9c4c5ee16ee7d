"""The job state shared by API processes and Celery workers, in Redis (see cartograph.jobs).

Keys, per repository (`{p}` = `cartograph:<repo>`):
- `{p}:want`   hash {sha, pushes}: the newest commit announced and how many pushes wait;
- `{p}:queued` set while a job is queued or running (expires: a killed worker cannot wedge it);
- `{p}:lock`   the running job's token (expires; refreshed while the job runs).
Every read-modify-write is one Lua script, so concurrent pushes and jobs never lose a commit.
"""

from __future__ import annotations

from typing import cast

import redis
from cartograph.jobs import QUEUED_TTL

_ANNOUNCE = """
redis.call('HSET', KEYS[1], 'sha', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'pushes', 1)
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then return 1 end
return 0
"""
_DONE = """
local sha = redis.call('HGET', KEYS[1], 'sha')
if not sha then return 0 end
if sha == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
local left = redis.call('HINCRBY', KEYS[1], 'pushes', -tonumber(ARGV[2]))
if left < 0 then redis.call('HSET', KEYS[1], 'pushes', 0) end
return 0
"""
_REFRESH = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  return 1
end
return 0
"""
_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_FINISH = """
redis.call('DEL', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then return 1 end
end
return 0
"""


class RedisJobState:
    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url, decode_responses=True)
        self._announce = self.client.register_script(_ANNOUNCE)
        self._done = self.client.register_script(_DONE)
        self._refresh = self.client.register_script(_REFRESH)
        self._unlock = self.client.register_script(_UNLOCK)
        self._finish = self.client.register_script(_FINISH)

    @staticmethod
    def _keys(repo: str) -> tuple[str, str, str]:
        prefix = f"cartograph:{repo}"
        return f"{prefix}:want", f"{prefix}:queued", f"{prefix}:lock"

    def announce(self, repo: str, sha: str) -> bool:
        want, queued, _lock = self._keys(repo)
        return bool(self._announce(keys=[want, queued], args=[sha, int(QUEUED_TTL * 1000)]))

    def wanted(self, repo: str) -> tuple[str | None, int]:
        # str keys and values: the client decodes responses (redis-py's types say bytes | str)
        values = cast("dict[str, str]", self.client.hgetall(self._keys(repo)[0]))
        if not values.get("sha"):
            return None, 0
        return values["sha"], int(values.get("pushes", 0))

    def done(self, repo: str, sha: str, pushes: int) -> None:
        self._done(keys=[self._keys(repo)[0]], args=[sha, pushes])

    def lock(self, repo: str, token: str, ttl: float) -> bool:
        return bool(self.client.set(self._keys(repo)[2], token, nx=True, px=int(ttl * 1000)))

    def refresh(self, repo: str, token: str, ttl: float) -> None:
        _want, queued, lock = self._keys(repo)
        self._refresh(keys=[lock, queued], args=[token, int(ttl * 1000), int(QUEUED_TTL * 1000)])

    def unlock(self, repo: str, token: str) -> None:
        self._unlock(keys=[self._keys(repo)[2]], args=[token])

    def finish(self, repo: str) -> bool:
        want, queued, _lock = self._keys(repo)
        return bool(self._finish(keys=[want, queued], args=[int(QUEUED_TTL * 1000)]))

    def depth(self, repo: str) -> int:
        return self.wanted(repo)[1]

    def ping(self) -> bool:
        return bool(self.client.ping())
