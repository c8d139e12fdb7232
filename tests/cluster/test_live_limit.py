"""nginx's limit on live connections per client address (config/nginx/bff.conf.template's
`limit_conn` for /socket.io/, LIVE_PER_ADDRESS), through real nginx rendered as
tools/devcluster.py renders it: one address holding LIVE_PER_ADDRESS websockets gets 429 for
the next, before any instance is involved, while another address and ordinary requests go on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import aiohttp
import pytest

from tests.cluster.conftest import ADMIN_PASSWORD
from tools.devcluster import Cluster

PER_ADDRESS = 3


@pytest.fixture(scope="module")
def limited_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One instance on SQLite and local storage behind nginx, PER_ADDRESS live connections per
    address (the instance's own limits left far above it, and its unconnected ones given a
    minute, so only nginx's is met here)."""
    root = tmp_path_factory.mktemp("live-limit")
    running = Cluster(
        root=root,
        database_url=f"sqlite://{root}/bff.sqlite3",
        redis_url="",
        storage_url=f"file://{root}/storage",
        instances=1,
        settings={"admin_password": ADMIN_PASSWORD, "live_connect_seconds": "60"},
        live_per_address=PER_ADDRESS,
    )
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
async def elsewhere() -> AsyncIterator[aiohttp.ClientSession]:
    """A client at another address (127.0.0.2: any 127/8 address is this machine's)."""
    async with aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
    ) as http:
        yield http


async def _live(http: aiohttp.ClientSession, cluster: Cluster) -> aiohttp.ClientWebSocketResponse:
    url = cluster.base.replace("http", "ws") + "/socket.io/?EIO=4&transport=websocket"
    ws = await http.ws_connect(url)
    assert (await ws.receive_str()).startswith('0{"sid"')  # Engine.IO's open, from the instance
    return ws


async def test_one_address_holds_at_most_its_live_connections(
    limited_cluster: Cluster, elsewhere: aiohttp.ClientSession
) -> None:
    cluster = limited_cluster
    async with aiohttp.ClientSession() as http:
        held = [await _live(http, cluster) for _ in range(PER_ADDRESS)]
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await _live(http, cluster)
        assert refused.value.status == 429
        async with http.get(cluster.base + "/api/health") as response:
            assert response.status == 200  # requests other than live connections go on
        other = await _live(elsewhere, cluster)  # another address has its own
        await other.close()

        await held.pop().close()
        async with asyncio.timeout(10):  # nginx counts it off once both sides have closed
            while True:
                try:
                    held.append(await _live(http, cluster))
                    break
                except aiohttp.WSServerHandshakeError as again:
                    assert again.status == 429
                    await asyncio.sleep(0.1)
        for ws in held:
            await ws.close()
