// The duel as a boardgame.io 0.50 game: both seats act at once (ActivePlayers.ALL), the picks are
// secret (playerView), moves run on the server only (client: false), as ours do. boardgame.io's
// players are "0" and "1": they stand for ann and bob.
'use strict';

const { ActivePlayers, INVALID_MOVE } = require('boardgame.io/core');
const rules = require('./duel_rules');

const SEAT_OF = { 0: 'ann', 1: 'bob' };

const Duel = {
  name: 'duel',
  minPlayers: 2,
  maxPlayers: 2,
  setup: (_context, setupData) => rules.newDuel(setupData && setupData.rounds !== undefined ? setupData.rounds : 3),
  turn: { activePlayers: ActivePlayers.ALL },
  moves: {
    pick: {
      move: ({ G, playerID }, number) => (rules.pick(G, SEAT_OF[playerID], number) === null ? G : INVALID_MOVE),
      client: false,
    },
  },
  endIf: ({ G }) => (rules.finished(G) ? { scores: G.scores } : undefined),
  playerView: ({ G, playerID }) => ({ ...rules.view(G, SEAT_OF[playerID] || null), rounds: G.rounds }),
};

module.exports = { Duel };
