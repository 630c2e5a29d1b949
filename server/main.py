"""`matchserver`: run the server (SQLite under var/ by default; PostgreSQL by --store)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal

from server.app import Settings, start_server


def parse_args(argv: list[str] | None = None) -> Settings:
    parser = argparse.ArgumentParser(prog="matchserver", description=__doc__)
    parser.add_argument("--address", default=os.environ.get("MATCHSERVER_ADDRESS", "127.0.0.1:50051"))
    parser.add_argument("--var", default=os.environ.get("MATCHSERVER_VAR", "var"), help="data folder")
    parser.add_argument(
        "--store",
        default=os.environ.get("MATCHSERVER_STORE", ""),
        help="memory | sqlite:PATH (default var/matches.db) | 'postgres:host=H port=P dbname=D user=U'",
    )
    parser.add_argument("--time-scale", type=float, default=float(os.environ.get("MATCHSERVER_TIME_SCALE", "1")))
    args = parser.parse_args(argv)
    return Settings(address=args.address, var_dir=args.var, store=args.store, time_scale=args.time_scale)


async def serve(settings: Settings) -> None:
    # grpc.aio installs no signal handlers: without these, SIGTERM would kill the process mid-call.
    stop_signal: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    for signum in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(signum, _settle, stop_signal, signal.Signals(signum).name)
    running = await start_server(settings)
    logging.info("matchserver on port %s, store %s", running.port, settings.store_url())
    host = settings.address.rsplit(":", 1)[0]
    print(f"matchserver listening on {host}:{running.port} (store {settings.store_url()})", flush=True)
    try:
        why = await stop_signal
        logging.info("%s received: refusing new calls, ending streams, finishing calls in flight", why)
    finally:
        await running.stop(settings.shutdown_grace, reason=stop_signal.result() if stop_signal.done() else "stopped")
    logging.info("matchserver stopped cleanly")


def _settle(future: asyncio.Future[str], value: str) -> None:
    if not future.done():
        future.set_result(value)


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(serve(parse_args(argv)))
    except KeyboardInterrupt:
        pass
    except OSError as exc:  # e.g. the address is taken: say so, without a traceback
        raise SystemExit(f"matchserver: {exc}") from None


if __name__ == "__main__":
    main()
