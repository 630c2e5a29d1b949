// A peer's bench client, one process, driven by bench/peers.py over stdin/stdout (a JSON object a line):
//   node client.js moves PEER URL ROUNDS   plays both seats of duels (ROUNDS 3: a new match every six
//                                          moves; 0: one endless match); {"go": S} -> {"ops", "lat"}
//   node client.js submit PEER URL         seats an endless duel, says {"match"}; {"go": S, "rate": R}
//                                          picks at R a second -> {"sent": [[key, t]], "acks"}
//   node client.js watch PEER URL MATCH N  N spectators of MATCH, each its own connection; {"until": K}:
//                                          once each has seen key K (or 30 s pass) -> {"receipts":
//                                          [[[key, t], ...] per watcher]}
// PEER is bgio (boardgame.io 0.50 over socket.io) or colyseus (colyseus.js 0.16 over ws). Times are
// seconds since the epoch (as Python's time.time()), latencies seconds. A key is the match's move count.
'use strict';

const readline = require('readline');
const { performance } = require('perf_hooks');

const now = () => (performance.timeOrigin + performance.now()) / 1000;
const TIMEOUT_MS = 30000;

function waitFor(check, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), TIMEOUT_MS);
    check((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

// A lobby call, sent again when the connection fails (32 clients seating at once on a loaded machine):
// setup only, never inside a measured move.
async function fetchAgain(url, options, attempts = 10) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, options);
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

// --- boardgame.io -------------------------------------------------------------------------------

const bgio = {
  async newMatch(url, rounds) {
    const { Client } = require('boardgame.io/client');
    const { SocketIO } = require('boardgame.io/multiplayer');
    const { Duel } = require('./bgio_game');
    const post = async (path, body) => {
      const reply = await fetchAgain(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!reply.ok) throw new Error(`${path}: ${reply.status} ${await reply.text()}`);
      return reply.json();
    };
    const { matchID } = await post('/games/duel/create', { numPlayers: 2, setupData: { rounds } });
    const shared = { stateID: 0 };
    const seats = [];
    for (const [playerID, name] of [['0', 'ann'], ['1', 'bob']]) {
      const { playerCredentials } = await post(`/games/duel/${matchID}/join`, { playerID, playerName: name });
      const client = Client({ game: Duel, multiplayer: SocketIO({ server: url }), matchID, playerID, credentials: playerCredentials, debug: false });
      seats.push(new BgioSeat(client, shared));
    }
    await Promise.all(seats.map((seat) => seat.synced));
    return { id: matchID, seats, close: () => seats.forEach((seat) => seat.client.stop()) };
  },
  async watch(url, matchID, onKey) {
    const { Client } = require('boardgame.io/client');
    const { SocketIO } = require('boardgame.io/multiplayer');
    const { Duel } = require('./bgio_game');
    const client = Client({ game: Duel, multiplayer: SocketIO({ server: url }), matchID, debug: false });
    let opened;
    const synced = new Promise((resolve) => (opened = resolve));
    client.subscribe((state) => {
      if (!state) return;
      opened();
      onKey(state.G.count);
    });
    client.start();
    await synced;
    return () => client.stop();
  },
};

class BgioSeat {
  // A seat's client. A move is sent on the state the seat's client last saw (boardgame.io refuses one
  // sent on an older state), so it first waits to see the state the other seat's last move made.
  constructor(client, match) {
    this.client = client;
    this.match = match;
    this.state = null;
    this.waiting = null;
    this.synced = new Promise((resolve) => (this.opened = resolve));
    client.subscribe((state) => {
      if (!state) return;
      this.state = state;
      this.opened();
      if (this.waiting && state._stateID >= this.waiting.least) {
        const done = this.waiting.done;
        this.waiting = null;
        done(state);
      }
    });
    client.start();
  }

  seen(least) {
    if (this.state._stateID >= least) return Promise.resolve(this.state);
    return waitFor((done) => (this.waiting = { least, done }), 'a boardgame.io update');
  }

  async pick(number) {
    const before = (await this.seen(this.match.stateID))._stateID;
    const state = await waitFor((done) => {
      this.waiting = { least: before + 1, done };
      this.client.moves.pick(number);
    }, 'a boardgame.io update');
    this.match.stateID = state._stateID;
    return state.G.count;
  }
}

// --- Colyseus -----------------------------------------------------------------------------------

const colyseus = {
  async newMatch(url, rounds) {
    const { Client } = require('colyseus.js');
    const client = new Client(url.replace(/^http/, 'ws'));
    const first = await client.create('duel', { seat: 'ann', rounds });
    const second = await client.joinById(first.roomId, { seat: 'bob' });
    const seats = [new ColyseusSeat(first), new ColyseusSeat(second)];
    return { id: first.roomId, seats, close: () => seats.forEach((seat) => seat.room.leave()) };
  },
  async watch(url, roomId, onKey) {
    const { Client } = require('colyseus.js');
    const room = await new Client(url.replace(/^http/, 'ws')).joinById(roomId, {});
    let opened;
    const synced = new Promise((resolve) => (opened = resolve));
    room.onStateChange((state) => {
      opened();
      onKey(state.count);
    });
    await synced;
    return () => room.leave();
  },
};

class ColyseusSeat {
  constructor(room) {
    this.room = room;
    this.next = 0;
    this.waiting = new Map();
    room.onMessage('result', (result) => {
      const done = this.waiting.get(result.id);
      this.waiting.delete(result.id);
      if (done) done(result);
    });
  }

  pick(number) {
    const id = ++this.next;
    return waitFor((done) => {
      this.waiting.set(id, done);
      this.room.send('pick', { id, n: number });
    }, 'a Colyseus result').then((result) => {
      if (!result.accepted) throw new Error(`a bench move was refused: ${result.message}`);
      return result.count;
    });
  }
}

// --- the three roles ----------------------------------------------------------------------------

async function moves(peer, url, rounds) {
  let match = null;
  let played = 0;
  const act = async () => {
    if (match === null || (rounds > 0 && played === 2 * rounds)) {
      if (match !== null) match.close();
      match = await peer.newMatch(url, rounds);
      played = 0;
    }
    await match.seats[played % 2].pick(1 + (played % 3));
    played += 1;
  };
  await act(); // the first match is open before the first window
  say({ ready: true });
  for await (const command of commands()) {
    const lat = [];
    const until = performance.now() + command.go * 1000;
    let t = performance.now();
    while (t < until) {
      await act();
      const after = performance.now();
      lat.push((after - t) / 1000);
      t = after;
    }
    say({ ops: lat.length, lat });
  }
  if (match !== null) match.close();
}

async function submit(peer, url) {
  const match = await peer.newMatch(url, 0);
  say({ match: match.id });
  let played = 0;
  for await (const command of commands()) {
    const sent = [];
    const acks = [];
    const start = performance.now();
    for (let index = 0; index < Math.floor(command.go * command.rate); index++) {
      const delay = start + (index * 1000) / command.rate - performance.now();
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      const at = now();
      const began = performance.now();
      const key = await match.seats[played % 2].pick(1 + (played % 3));
      acks.push((performance.now() - began) / 1000);
      sent.push([key, at]);
      played += 1;
    }
    say({ sent, acks });
  }
  match.close();
}

async function watch(peer, url, matchID, count) {
  const receipts = Array.from({ length: count }, () => []);
  const closes = [];
  for (let index = 0; index < count; index++) {
    let first = true;
    closes.push(await peer.watch(url, matchID, (key) => {
      if (first) first = false; // the state on joining, before the window
      else receipts[index].push([key, now()]);
    }));
  }
  say({ ready: true });
  for await (const command of commands()) {
    const give_up = performance.now() + TIMEOUT_MS;
    const behind = (mine) => mine.length === 0 || mine[mine.length - 1][0] < command.until;
    while (receipts.some(behind) && performance.now() < give_up) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    say({ receipts: receipts.map((mine) => mine.splice(0)) });
  }
  closes.forEach((close) => close());
}

function say(object) {
  process.stdout.write(JSON.stringify(object) + '\n');
}

async function* commands() {
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line.trim()) yield JSON.parse(line);
  }
}

const [role, name, url, ...rest] = process.argv.slice(2);
const peer = { bgio, colyseus }[name];
const run = { moves: () => moves(peer, url, Number(rest[0])), submit: () => submit(peer, url), watch: () => watch(peer, url, rest[0], Number(rest[1])) }[role];
run().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error.stack || error}\n`);
    process.exit(1);
  },
);
