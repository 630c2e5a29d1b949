// The duel fixture (engine/fixtures/duel.py) as plain functions, shared by the two peers' twins:
// each round both seats pick 1-3 in secret, the higher pick scores, three rounds (rounds = 0: endless,
// as bench/fanout.py's EndlessDuel). Seats are "ann" and "bob". No deadline: the peers have no timer
// that matches ours, and no bench move ever waits for one.
'use strict';

const SEATS = ['ann', 'bob'];

function newDuel(rounds) {
  return { round: 1, rounds, picks: {}, scores: { ann: 0, bob: 0 }, count: 0 };
}

// null when the pick is legal and applied (the state mutated in place), else the refusal's text.
function pick(duel, seat, number) {
  if (!SEATS.includes(seat)) return `${seat} holds no seat`;
  if (finished(duel)) return 'the match is over';
  if (!Number.isInteger(number) || number < 1 || number > 3) return `pick 1, 2 or 3, not ${number} (DUEL-1)`;
  if (seat in duel.picks) return `${seat} has already picked this round`;
  duel.picks[seat] = number;
  duel.count += 1;
  if (Object.keys(duel.picks).length === SEATS.length) {
    const best = Math.max(...Object.values(duel.picks));
    const winners = SEATS.filter((s) => duel.picks[s] === best);
    for (const winner of winners) duel.scores[winner] += 1;
    duel.picks = {};
    duel.round += 1;
  }
  return null;
}

function finished(duel) {
  return duel.rounds > 0 && duel.round > duel.rounds;
}

// What `viewer` (a seat, or null for a spectator) may see: the other seat's pick is secret.
function view(duel, viewer) {
  const mine = {};
  if (viewer && viewer in duel.picks) mine[viewer] = duel.picks[viewer];
  return { round: duel.round, scores: duel.scores, my_picks: mine, picked: Object.keys(duel.picks).sort(), count: duel.count };
}

module.exports = { SEATS, newDuel, pick, finished, view };
