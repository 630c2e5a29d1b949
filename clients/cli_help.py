"""`matchctl --help` text: an example for every subcommand, and the games and bots there are."""

from __future__ import annotations

from clients.bots import BOTS
from engine.registry import available

EXAMPLES: dict[str, list[str]] = {
    "create": ["matchctl create cookoff --players ann,bob --seed 1", "matchctl create mining --players a,b,c,d,e"],
    "join": ["matchctl join MATCH ann --invitation CODE", "matchctl join MATCH bob   # as host: fills the seat"],
    "invite": ["matchctl invite MATCH bob"],
    "host-key": ['matchctl host-key create "club night"', "matchctl host-key list", "matchctl host-key revoke KEY_ID"],
    "submit": ['matchctl submit MATCH --as ann "I will send 2 workers to the Pecha tree."'],
    "state": ["matchctl state MATCH --as ann", "matchctl state MATCH --json   # the host's view, as JSON"],
    "history": ["matchctl history MATCH", "matchctl history MATCH --json   # every record whole"],
    "watch": ["matchctl watch MATCH --as spectator   # ends when the match ends"],
    "list": ["matchctl list", "MATCHCTL_SERVER=games.example.org:50051 matchctl list --tls"],
    "end-phase": ['matchctl end-phase MATCH --reason "everyone is done"'],
    "transcript": ["matchctl transcript MATCH > match.txt"],
    "pause": ['matchctl pause MATCH --reason "a break"'],
    "resume": ["matchctl resume MATCH"],
    "start": ['matchctl start MATCH --reason "carl joins later"'],
    "extend": ["matchctl extend MATCH --seconds 60"],
    "cancel": ['matchctl cancel MATCH --reason "created by mistake"'],
    "audit": ["matchctl audit MATCH --at 40"],
    "verify": ["matchctl verify --all", "matchctl verify MATCH --receipts", "matchctl verify --tournament TOURNAMENT"],
    "rollback": ['matchctl rollback MATCH --to 12 --reason "a misread command"'],
    "fork": ["matchctl fork MATCH --at 12"],
    "settle": ['matchctl settle MATCH --reason "the tie goes to ann (MN-5)"'],
    "token": ["matchctl token admin TOKEN", "matchctl token player MATCH ann TOKEN"],
    "picture": ["matchctl picture MATCH --as spectator > board.svg"],
    "replay": ["matchctl replay MATCH --as spectator > replay.html"],
    "play-bots": ["matchctl play-bots --game mining --seed 1", "matchctl play-bots --game cookoff --bots judge_bot"],
    "bot": [
        "matchctl bot create ann-bot   # prints its bot key, once",
        "matchctl bot list",
        'matchctl bot rotate ann-bot --reason "the key leaked"',
        'matchctl bot revoke ann-bot --reason "left the club"',
        "matchctl bot log MATCH --as ann   # what a bridged program wrote on stderr",
    ],
    "bridge": [
        "matchctl bridge MATCH --as ann -- sh clients/examples/echo_bot.sh",
        "MATCHSERVER_BOT_KEY=msbk_... matchctl bridge -- ./my_bot --fast   # an arena bot",
    ],
    "challenge": [
        "matchctl challenge --game cookoff --bots ann-bot,bob-bot",
        "matchctl challenge answer CHALLENGE --accept --token msbk_...",
    ],
    "tournament": [
        "matchctl tournament create --game cookoff --bots a,b,c --games-per-pair 2 --name spring",
        "matchctl tournament create --game mining --bots a,b,c,d,e,f --rounds 3 --seed 7",
        "matchctl tournament show TOURNAMENT",
        "matchctl tournament list",
        'matchctl tournament void TOURNAMENT MATCH --reason "the server lost a bot\'s connection" --rematch',
    ],
    "leaderboard": ["matchctl leaderboard --game cookoff"],
    "dispute": [
        'matchctl dispute MATCH --at 11 "the harvest was split wrong" --as ann',
        "matchctl dispute show MATCH.1",
        'matchctl dispute try MATCH.1 --replace "ann: I will send 2 workers to the Leppa tree." --forward',
        'matchctl dispute correct MATCH.1 --reason "misread" --replace "ann: ..." --reapply',
    ],
    "simulate": [
        "matchctl simulate --script match.txt   # game, seed and players from its first line",
        "matchctl simulate --game mining --players a,b,c,d,e --seed 1 --script match.txt",
    ],
}


def examples(command: str) -> str:
    lines = EXAMPLES.get(command, [])
    return "examples:\n" + "\n".join(f"  {line}" for line in lines) if lines else ""


def overview() -> str:
    """Games and their example bots, and where a MATCH may be a prefix."""
    games = "\n".join(f"  {name:16s} bots: {', '.join(BOTS[name][1]) if name in BOTS else '-'}" for name in available())
    return (
        f"games:\n{games}\n\n"
        "MATCH may be a unique prefix of 8 or more hex digits of a match you can list.\n"
        "--server, --json and the TLS options go before or after the subcommand; MATCHCTL_SERVER sets the server."
    )
