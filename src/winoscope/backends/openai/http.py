"""HTTP for the openai backend, on ``aiohttp``: one session per run, proxies, TLS, redirects.

Why aiohttp: against the stand-in server at 50 ms latency it kept 64 requests in flight at
about 0.9 of the ideal rate on quiet cores (lm-eval's client, also aiohttp), and 15 times the
rate of ``httpx`` 0.28's AsyncClient (the ``openai`` SDK's default transport) on busy ones,
where httpx fell to 0.03-0.08 of the ideal. It pools keep-alive connections up to a limit,
decodes gzip/deflate and chunked bodies and tunnels HTTPS through a proxy (CONNECT). It speaks
HTTP/1.1 only (no HTTP/2).

Proxies follow ``HTTP_PROXY``/``HTTPS_PROXY``/``ALL_PROXY``/``NO_PROXY`` with the standard
library's rules (those of aiohttp's ``trust_env`` too), looked up once per URL when a run
starts: ``trust_env`` itself looks them up, and reads ``~/.netrc``, in worker threads for every
request (two thread hand-offs per request; here about 730 instead of 450 us of client CPU per
request at 64 in flight). ``proxy`` (``--proxy``) overrides them.

Certificates are checked against the system store, or the file named by ``SSL_CERT_FILE``
(read when a run starts). Redirects are not left to the library: a POST is re-sent only on a
307/308 to the same origin (scheme, host and port; the body and the key are kept), at most
:data:`MAX_REDIRECTS` times; any other redirect stops the run with one line naming the
``Location`` (a 301/302 would turn the POST into a GET, and another origin must not get the
API key).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...errors import BackendError

if TYPE_CHECKING:
    import ssl

# ssl and urllib.request load when a request is made: registering the backend (every run
# looks its backend up among all of them) stays cheap
MAX_REDIRECTS = 5


@dataclass(frozen=True)
class Answer:
    status: int
    headers: Mapping[str, str]
    body: bytes
    url: str


def tls_context() -> ssl.SSLContext:
    """The system's trust store, or ``SSL_CERT_FILE``/``SSL_CERT_DIR`` when set."""
    import ssl

    ctx = ssl.create_default_context()
    cafile, capath = os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")
    if cafile or capath:
        ctx.load_verify_locations(cafile=cafile or None, capath=capath or None)
    return ctx


def proxy_for(url: str, proxy: str | None) -> str | None:
    """The proxy a request to ``url`` goes through: ``proxy`` if given, else the environment's
    (``HTTP_PROXY``/``HTTPS_PROXY``, unless ``NO_PROXY`` names the host), else None."""
    if proxy:
        return proxy
    import urllib.request
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
    if not proxies or bypass(parts.hostname or "", proxies):
        return None
    return proxies.get(parts.scheme) or proxies.get("all")


def proxy_summary(urls: list[str], proxy: str | None) -> dict[str, Any]:
    """What the manifest records: whether a proxy was used and where it came from, never its
    address or credentials."""
    used = [proxy_for(u, proxy) is not None for u in urls]
    source = "--proxy" if proxy else ("environment" if any(used) else None)
    return {"proxy": any(used), "proxy_source": source}


def origin(url: Any) -> tuple[str, str, int | None]:
    return (str(url.scheme), str(url.host), url.port)


class Transport:
    """One ``aiohttp.ClientSession`` for a run (create inside the running event loop)."""

    def __init__(self, concurrency: int, timeout: float, headers: Mapping[str, str],
                 proxy: str | None) -> None:  # fmt: skip
        import aiohttp

        self.aiohttp = aiohttp
        connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=0, ssl=tls_context())
        self.session = aiohttp.ClientSession(
            connector=connector,
            headers={"Content-Type": "application/json", **headers},
            timeout=aiohttp.ClientTimeout(total=timeout),
            cookie_jar=aiohttp.DummyCookieJar(),
        )
        self.proxy = proxy or None
        self._proxies: dict[str, str | None] = {}

        self._urls: dict[str, Any] = {}

    def proxy_of(self, url: str) -> str | None:
        """The proxy for ``url``, looked up once."""
        try:
            return self._proxies[url]
        except KeyError:
            found = self._proxies[url] = proxy_for(url, self.proxy)
            return found

    async def close(self) -> None:
        await self.session.close()

    async def post(self, url: str, body: bytes) -> Answer:
        """POST ``body``; follows same-origin 307/308, stops the run on other redirects."""
        from yarl import URL

        target = self._urls.get(url)
        if target is None:
            target = self._urls[url] = URL(url)
        for _ in range(MAX_REDIRECTS + 1):
            async with self.session.post(
                target, data=body, allow_redirects=False, proxy=self.proxy_of(str(target))
            ) as resp:
                raw = await resp.read()
                status = resp.status
                headers = {k.lower(): v for k, v in resp.headers.items()}
            if status not in (301, 302, 303, 307, 308):
                return Answer(status, headers, raw, str(target))
            location = headers.get("location")
            if not location:
                raise BackendError(f"{target} answered HTTP {status} without a Location header")
            nxt = target.join(URL(location))
            if status in (307, 308) and origin(nxt) == origin(target):
                target = nxt
                continue
            why = (
                "to another origin (the API key is not sent there)"
                if status in (307, 308)
                else "which would turn the POST into a GET"
            )
            raise BackendError(
                f"{target} answered HTTP {status}, a redirect to {nxt} {why}; "
                "use that address as --base-url"
            )
        raise BackendError(f"{url}: more than {MAX_REDIRECTS} redirects (a redirect loop)")
