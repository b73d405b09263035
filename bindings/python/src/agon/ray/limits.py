"""Global limits per provider: one named actor per provider holds its ``in_flight`` and
``per_minute`` limits, and every call on every node takes a lease from it first."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any, Callable, Optional, TypedDict

import ray


class Limit(TypedDict, total=False):
    """One provider's global limits: requests ``in_flight`` at once, requests started ``per_minute``."""

    in_flight: int
    per_minute: int


class StaleLease(Exception):
    """A lease asked for by a runner that has since been restarted, or given back before it was granted."""


#: How long a lease lives without being renewed; its holder renews it every HEARTBEAT_SECONDS.
LEASE_SECONDS = 30.0
HEARTBEAT_SECONDS = 2.0


class Limits:
    """In-flight and per-minute limits for one provider, as the limiter actor keeps them.

    Leases are granted first come, first served. ``per_minute`` spaces request
    starts evenly (60 s / N apart), as ``agon batch --rate`` does. Each lease
    has an id its caller chose, an owner (a runner) in one incarnation
    (``token``), and an expiry: when a runner restarts, :meth:`register` frees
    what its dead incarnation held; :meth:`hold` renews what a live one holds
    (re-registering leases a restarted limiter does not know); a lease not
    renewed for ``ttl`` seconds is reclaimed. A lease given back is never
    granted or re-registered after, whatever order the calls arrive in.
    """

    def __init__(
        self, in_flight: Optional[int] = None, per_minute: Optional[int] = None,
        clock: Callable[[], float] = time.monotonic, ttl: float = LEASE_SECONDS,
    ) -> None:
        for name, value in (("in_flight", in_flight), ("per_minute", per_minute)):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
        self.in_flight, self.per_minute = in_flight, per_minute
        self.spacing = 60.0 / per_minute if per_minute else 0.0
        self.clock, self.ttl = clock, ttl
        #: lease id -> (owner, token, expires at)
        self.leases: dict[str, tuple[str, str, float]] = {}
        self.current: dict[str, str] = {}
        self.waiters: deque[tuple[asyncio.Future[str], str, str, str]] = deque()
        #: Leases given back, and when: so a late grant or renewal of one is refused.
        self.returned: dict[str, float] = {}
        self.next_start = 0.0
        self.paused_until = 0.0
        self.timer: Optional[asyncio.TimerHandle] = None
        self.timer_at = 0.0
        self.most_in_flight = 0

    def config(self) -> tuple[Optional[int], Optional[int]]:
        return self.in_flight, self.per_minute

    def pause(self, seconds: float) -> None:
        """Grant nothing for ``seconds``: after a restart, while holders re-register their leases."""
        self.paused_until = self.clock() + seconds

    async def acquire(self, owner: str, token: str, lease: str) -> str:
        """Wait for a place under the id ``lease``; returns it, to give back with :meth:`release`."""
        if self.current.get(owner, token) != token:
            raise StaleLease(f"runner {owner} was restarted")
        if lease in self.returned:
            raise StaleLease(f"lease {lease} was given back before it was granted")
        if lease in self.leases:
            return lease
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.waiters.append((future, owner, token, lease))
        self._grant()
        try:
            return await future
        except asyncio.CancelledError:
            # Cancelled while waiting, or after the grant but before this resumed: give it back either way.
            self.release(lease)
            raise

    def release(self, lease: str) -> None:
        """Give a lease back: held, still waited for, or not yet asked for."""
        self.returned.pop(lease, None)  # kept in order of return, for _reclaim
        self.returned[lease] = self.clock()
        for future, _, _, waited in self.waiters:
            if waited == lease and not future.done():
                future.set_exception(StaleLease(f"lease {lease} was given back before it was granted"))
        self.leases.pop(lease, None)
        self._grant()

    def hold(self, owner: str, token: str, leases: Iterable[str]) -> None:
        """A live runner still holds ``leases``: renew them, re-registering any this limiter does not know."""
        if self.current.setdefault(owner, token) != token:
            return  # an earlier incarnation, already replaced
        expires = self.clock() + self.ttl
        for lease in leases:
            if lease not in self.returned:
                self.leases[lease] = (owner, token, expires)
        self.most_in_flight = max(self.most_in_flight, len(self.leases))
        self._grant()

    def register(self, owner: str, token: str) -> None:
        """A runner (re)started: leases of its earlier incarnations are freed."""
        self.current[owner] = token
        for lease, (o, t, _) in list(self.leases.items()):
            if o == owner and t != token:
                del self.leases[lease]
        self._grant()

    def tick(self) -> None:
        """Reclaim expired leases, forget old returns, and grant what can be granted now."""
        self._grant()

    def _reclaim(self, now: float) -> None:
        for lease, (_, _, expires) in list(self.leases.items()):
            if expires <= now:
                del self.leases[lease]
        # A return is remembered for as long as a lease can live: older ones can no longer matter.
        for lease, at in list(self.returned.items()):
            if at + self.ttl > now:
                break  # in order of return
            del self.returned[lease]

    def _grant(self) -> None:
        now = self.clock()
        self._reclaim(now)
        while self.waiters:
            future, owner, token, lease = self.waiters[0]
            if future.done():  # its caller went away, or gave it back
                self.waiters.popleft()
                continue
            if self.current.get(owner, token) != token:
                self.waiters.popleft()
                future.set_exception(StaleLease(f"runner {owner} was restarted"))
                continue
            if now < self.paused_until:
                self._wake_at(self.paused_until)
                return
            if self.in_flight is not None and len(self.leases) >= self.in_flight:
                # Wakes when the first lease expires, if nobody gives one back before.
                self._wake_at(min(expires for _, _, expires in self.leases.values()))
                return
            if self.spacing and now < self.next_start:
                self._wake_at(self.next_start)
                return
            self.waiters.popleft()
            self.next_start = max(now, self.next_start) + self.spacing if self.spacing else now
            self.leases[lease] = (owner, token, now + self.ttl)
            self.most_in_flight = max(self.most_in_flight, len(self.leases))
            future.set_result(lease)

    def _wake_at(self, at: float) -> None:
        if self.timer is not None and self.timer_at <= at:
            return
        if self.timer is not None:
            self.timer.cancel()
        self.timer_at = at
        self.timer = asyncio.get_running_loop().call_later(max(0.0, at - self.clock()), self._wake)

    def _wake(self) -> None:
        self.timer = None
        self._grant()


class _Limiter:
    """One provider's :class:`Limits`, shared by every runner of every sweep in the namespace.

    Restartable: Ray starts it again with the same limits, and it then waits two
    heartbeats for the runners to re-register the leases they hold."""

    def __init__(self, in_flight: Optional[int], per_minute: Optional[int]) -> None:
        self.limits = Limits(in_flight, per_minute)
        self.restarted = bool(ray.get_runtime_context().was_current_actor_reconstructed)
        if self.restarted:
            self.limits.pause(2 * HEARTBEAT_SECONDS + 1)
        #: The sweeps using this limiter; after a restart, their runners' renewals name them again.
        self.users: set[str] = set()

    async def config(self) -> tuple[Optional[int], Optional[int]]:
        return self.limits.config()

    async def acquire(self, owner: str, token: str, lease: str) -> str:
        return await self.limits.acquire(owner, token, lease)

    async def release(self, lease: str) -> None:
        self.limits.release(lease)

    async def hold(self, sweep: str, owner: str, token: str, leases: list[str]) -> None:
        self.users.add(sweep)
        self.limits.hold(owner, token, leases)

    async def register(self, owner: str, token: str) -> None:
        self.limits.register(owner, token)

    async def state(self) -> dict[str, Any]:
        """What it holds now, for tests and diagnostics."""
        self.limits.tick()
        return {"leases": len(self.limits.leases), "most_in_flight": self.limits.most_in_flight,
                "restarted": self.restarted}

    async def most_in_flight(self) -> int:
        return self.limits.most_in_flight

    async def join(self, sweep: str) -> None:
        self.users.add(sweep)

    async def leave(self, sweep: str) -> int:
        """One sweep is done with this limiter; returns how many still use it."""
        self.users.discard(sweep)
        return len(self.users)


# Ray's actor class (typed loosely: ray's stubs do not cover .options on a decorated class).
_RemoteLimiter: Any = ray.remote(_Limiter)


def limiters(limits: Mapping[str, Limit], namespace: str, sweep: str) -> dict[str, Any]:
    """The limiter actor of each provider in ``limits``, joined by ``sweep``: made, or the one
    another sweep in ``namespace`` already uses (refused unless it has the same limits)."""
    handles = {}
    for provider, limit in limits.items():
        unknown = set(limit) - {"in_flight", "per_minute"}
        if unknown:
            raise ValueError(f"limits[{provider!r}]: unknown field {sorted(unknown)[0]!r} (in_flight, per_minute)")
        wanted = (limit.get("in_flight"), limit.get("per_minute"))
        Limits(*wanted)  # checks the values, naming the field
        # Restarted by Ray if it dies, and the calls it had (acquire, release, hold) sent to the new one.
        handle = _RemoteLimiter.options(
            name=f"agon-limit-{provider}", namespace=namespace, get_if_exists=True, num_cpus=0,
            max_concurrency=100_000, max_restarts=-1, max_task_retries=-1,
        ).remote(*wanted)
        held = tuple(ray.get(handle.config.remote()))
        if held != wanted:
            raise ValueError(
                f"limits[{provider!r}]: the cluster already limits {provider} to in_flight={held[0]}, "
                f"per_minute={held[1]} (another sweep in this namespace is running); ask for the same limits"
            )
        ray.get(handle.join.remote(sweep))
        handles[provider] = handle
    return handles
