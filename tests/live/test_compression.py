"""Live connections decline websocket compression: a browser always offers permessage-deflate,
and accepting it gave every connection a zlib compressor and decompressor (about 95 KB, twice the
rest of a connection's memory: docs/capacity.md) for frames of a few dozen bytes. Through a real
server and clients."""

from __future__ import annotations

import aiohttp
import pytest

from tests.live.conftest import LiveServer


@pytest.mark.live_patch("no-compression", why="Hypercorn's own handshake accepts it")
async def test_the_server_declines_permessage_deflate_a_client_offers(live: LiveServer) -> None:
    url = f"{live.base}/socket.io/?EIO=4&transport=websocket"
    async with aiohttp.ClientSession() as session, session.ws_connect(url, compress=15) as ws:
        assert "Sec-WebSocket-Extensions" not in ws._response.headers
        assert ws.compress == 0
        opening = await ws.receive_str()  # Engine.IO's open packet, uncompressed
        assert opening.startswith('0{"sid"')
