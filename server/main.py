"""`matchserver`: run the server (SQLite under var/ by default; PostgreSQL by --store).

Plaintext is served on loopback addresses only, unless --insecure-public; elsewhere give --tls-cert and
--tls-key. Exit codes: 2 for settings that cannot work, 1 when the address is taken.
"""

from __future__ import annotations

import argparse
import asyncio
import faulthandler
import gc
import logging
import os
import re
import signal
import sys

from server.app import Settings, start_server
from server.errors import StartupRefused


def parse_args(argv: list[str] | None = None) -> Settings:
    parser = argparse.ArgumentParser(
        prog="matchserver", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--address", default=os.environ.get("MATCHSERVER_ADDRESS", "127.0.0.1:50051"))
    parser.add_argument("--var", default=os.environ.get("MATCHSERVER_VAR", "var"), help="data folder")
    parser.add_argument(
        "--store",
        default=os.environ.get("MATCHSERVER_STORE", ""),
        help="memory | sqlite:PATH (default var/matches.db) | 'postgres:host=H port=P dbname=D user=U'",
    )
    parser.add_argument("--time-scale", type=float, default=float(os.environ.get("MATCHSERVER_TIME_SCALE", "1")))
    parser.add_argument(
        "--chain-key-file",
        default=os.environ.get("MATCHSERVER_CHAIN_KEY_FILE", ""),
        help="the key that chains match records (required with PostgreSQL: the same file on every node; "
        "default VAR/chain.key, created on first start)",
    )
    parser.add_argument(
        "--tls-cert", default=os.environ.get("MATCHSERVER_TLS_CERT", ""), help="PEM certificate chain: serve TLS"
    )
    parser.add_argument("--tls-key", default=os.environ.get("MATCHSERVER_TLS_KEY", ""), help="PEM private key")
    parser.add_argument(
        "--insecure-public",
        action="store_true",
        help="serve plaintext on a non-loopback address (only behind something that encrypts the traffic)",
    )
    parser.add_argument(
        "--cache-mb",
        type=float,
        default=float(os.environ.get("MATCHSERVER_CACHE_MB", "512")),
        help="memory for matches kept live (estimated); the least recently used are read again when needed",
    )
    parser.add_argument(
        "--http",
        default=os.environ.get("MATCHSERVER_HTTP", ""),
        help="HOST:PORT: serve the pages (front door, live matches, seats, host console; HTTPS with --tls-cert)",
    )
    parser.add_argument(
        "--page-url",
        default=os.environ.get("MATCHSERVER_PAGE_URL", ""),
        help="the pages' address as players reach it (invitation links), e.g. https://games.example.org",
    )
    args = parser.parse_args(argv)
    return Settings(
        cache_mb=args.cache_mb,
        address=args.address,
        var_dir=args.var,
        store=args.store,
        time_scale=args.time_scale,
        chain_key_file=args.chain_key_file,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        insecure_public=args.insecure_public,
        http_address=args.http,
        page_url=args.page_url,
    )


def shown_store(url: str) -> str:
    """The store URL as logged: a PostgreSQL password never reaches a log line."""
    return re.sub(r"password=('[^']*'|\S+)", "password=***", url)


async def serve(settings: Settings) -> None:
    # grpc.aio installs no signal handlers: without these, SIGTERM would kill the process mid-call.
    stop_signal: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    for signum in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(signum, _settle, stop_signal, signal.Signals(signum).name)
    running = await start_server(settings)
    transport = "TLS" if settings.tls_cert else "plaintext"
    store = shown_store(settings.store_url())
    logging.info("matchserver on port %s (%s), store %s", running.port, transport, store)
    host = settings.address.rsplit(":", 1)[0]
    print(f"matchserver listening on {host}:{running.port} ({transport}, store {store})", flush=True)
    if running.http is not None:
        print(f"pages at {running.page_url}/ (live matches at /matches/<match id>)", flush=True)
    try:
        why = await stop_signal
        logging.info("%s received: refusing new calls, ending streams, finishing calls in flight", why)
    finally:
        await running.stop(settings.shutdown_grace, reason=stop_signal.result() if stop_signal.done() else "stopped")
    logging.info("matchserver stopped cleanly")


def _settle(future: asyncio.Future[str], value: str) -> None:
    if not future.done():
        future.set_result(value)


def collect_less_often() -> None:
    """A full collection of the garbage collector stops the event loop while it walks every tracked object:
    30-350 ms with thousands of cached matches (docs/BENCHMARKS.md). What the server keeps is freed without
    it (a match and its facts make no cycle), so full collections run a tenth as often, and what is loaded
    by now (modules, classes: it lives as long as the process) is left out of every collection."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 100)
    gc.freeze()


def main(argv: list[str] | None = None) -> None:
    # Everything the server creates (store, -wal, -shm, tokens) is for its owner only.
    os.umask(0o077)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # A fault no Python code can catch (SIGBUS when SQLite's memory-mapped -shm file is truncated or cannot
    # be written, SIGSEGV) still says why on stderr: every thread's stack, the store's among them.
    faulthandler.enable(all_threads=True)
    settings = parse_args(argv)
    collect_less_often()
    try:
        asyncio.run(serve(settings))
    except StartupRefused as exc:
        print(f"matchserver: not starting: {exc}", file=sys.stderr, flush=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
