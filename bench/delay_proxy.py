"""A TCP proxy that holds every chunk it passes back for --delay milliseconds, each way, in
order: a database on another machine (or a busy one) for bench/live_bench.py's
--database-delay, in a process of its own so its work is not the bench's or the server's.

Usage:
    .venv/bin/python bench/delay_proxy.py --port 6543 --to 127.0.0.1:5432 --delay 5
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib


async def _pass_on(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float
) -> None:
    """Everything `reader` gives, to `writer`, each chunk `delay` seconds after it came."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def later() -> None:
        while True:
            due, data = await queue.get()
            if not data:
                break
            await asyncio.sleep(max(0.0, due - loop.time()))
            writer.write(data)
            await writer.drain()

    sending = asyncio.create_task(later())
    try:
        while data := await reader.read(65536):
            queue.put_nowait((loop.time() + delay, data))
    finally:
        queue.put_nowait((0.0, b""))
        with contextlib.suppress(OSError):
            await sending
        writer.close()


async def serve(port: int, host: str, to_port: int, delay: float) -> None:
    async def one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(host, to_port)
        except OSError:
            writer.close()
            return
        with contextlib.suppress(OSError):
            await asyncio.gather(
                _pass_on(reader, up_writer, delay), _pass_on(up_reader, writer, delay)
            )

    server = await asyncio.start_server(one, "127.0.0.1", port)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--to", required=True, help="host:port")
    parser.add_argument("--delay", type=float, required=True, help="milliseconds each way")
    args = parser.parse_args()
    host, _, to_port = args.to.rpartition(":")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.port, host, int(to_port), args.delay / 1000))


if __name__ == "__main__":
    main()
