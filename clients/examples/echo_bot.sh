#!/bin/sh
# A bot for `matchctl bridge` in POSIX sh and sed (docs/BOTS.md, "Any program as a bot").
#
#   matchctl bridge MATCH --as ann -- sh clients/examples/echo_bot.sh
#
# Each line on stdin is one turn as JSON; the answer is one line on stdout. This bot answers every turn
# with the turn's own `example` (a command the server says the seat could send now), which is the
# line's last field, so a greedy match finds it. What it writes on stderr lands in the seat's log
# (`matchctl bot log MATCH --as ann`).
while IFS= read -r turn; do
    example=$(printf '%s\n' "$turn" | sed -n 's/.*"example": "\(.*\)"}$/\1/p' | sed 's/\\"/"/g; s/\\\\/\\/g')
    case $turn in
        *'"refused": '*) printf 'my last answer was refused; trying the example again\n' >&2 ;;
    esac
    printf 'answering: %s\n' "$example" >&2
    printf '%s\n' "$example"
done
