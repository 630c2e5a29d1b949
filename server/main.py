"""`matchserver`: run the server (SQLite under var/ by default; PostgreSQL by --store)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys

from server.app import Settings, start_server
from server.errors import StartupRefused


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
    parser.add_argument(
        "--chain-key-file",
        default=os.environ.get("MATCHSERVER_CHAIN_KEY_FILE", ""),
        help="the key that chains match records (required with PostgreSQL: the same file on every node; "
        "default VAR/chain.key, created on first start)",
    )
    args = parser.parse_args(argv)
    return Settings(
        address=args.address,
        var_dir=args.var,
        store=args.store,
        time_scale=args.time_scale,
        chain_key_file=args.chain_key_file,
    )


async def serve(settings: Settings) -> None:
    running = await start_server(settings)
    logging.info("matchserver on port %s, store %s", running.port, settings.store_url())
    host = settings.address.rsplit(":", 1)[0]
    print(f"matchserver listening on {host}:{running.port} (store {settings.store_url()})", flush=True)
    try:
        await running.server.wait_for_termination()
    finally:
        await running.stop()


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(serve(parse_args(argv)))
    except KeyboardInterrupt:
        pass
    except StartupRefused as exc:
        print(f"matchserver: not starting: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
