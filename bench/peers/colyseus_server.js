// Colyseus 0.16 (@colyseus/core over ws, @colyseus/ws-transport) with the duel as a room: seats join
// with {seat: "ann" | "bob"}, spectators with {}; a pick is the "pick" message, answered to its sender
// with "result"; the state (round, scores, who picked, count; never the picks) is patched to every
// client right after each pick (automatic patching off: one patch per move, sent at once).
// Prints "listening on 127.0.0.1:PORT" once it serves.
'use strict';

const http = require('http');
const { Server, Room } = require('@colyseus/core');
const { WebSocketTransport } = require('@colyseus/ws-transport');
const { Schema, MapSchema, ArraySchema, defineTypes } = require('@colyseus/schema');
const rules = require('./duel_rules');

class DuelState extends Schema {
  constructor() {
    super();
    this.round = 1;
    this.count = 0;
    this.scores = new MapSchema();
    this.picked = new ArraySchema();
  }
}
defineTypes(DuelState, { round: 'number', count: 'number', scores: { map: 'number' }, picked: ['string'] });

class DuelRoom extends Room {
  onCreate(options) {
    this.maxClients = 1000;
    this.autoDispose = true;
    this.duel = rules.newDuel(options.rounds === undefined ? 3 : options.rounds);
    this.setState(new DuelState());
    for (const seat of rules.SEATS) this.state.scores.set(seat, 0);
    this.setPatchRate(null);
    this.onMessage('pick', (client, message) => {
      const refused = client.userData && client.userData.seat ? rules.pick(this.duel, client.userData.seat, message.n) : 'a spectator cannot pick';
      if (refused === null) {
        const duel = this.duel;
        this.state.round = duel.round;
        this.state.count = duel.count;
        for (const seat of rules.SEATS) this.state.scores.set(seat, duel.scores[seat]);
        this.state.picked.clear();
        for (const seat of Object.keys(duel.picks).sort()) this.state.picked.push(seat);
        this.broadcastPatch();
      }
      client.send('result', { id: message.id, accepted: refused === null, message: refused || '', count: this.duel.count });
    });
  }

  onJoin(client, options) {
    client.userData = { seat: options.seat || null };
  }
}

const server = http.createServer();
const gameServer = new Server({ transport: new WebSocketTransport({ server }), greet: false });
gameServer.define('duel', DuelRoom);
gameServer.listen(0).then(() => {
  console.log(`listening on 127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => process.exit(0));
