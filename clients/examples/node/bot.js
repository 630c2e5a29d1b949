#!/usr/bin/env node
// A matchserver seat played over MatchService.Play, in plain Node (no build step): see README.md.
//
//   MATCHSERVER_ADDRESS=127.0.0.1:50051 MATCH_ID=<match id> MATCH_TOKEN=<seat token> [MATCH_SEAT=ann] node bot.js
//
// On each Turn it decides once (the Turn's `example`: a legal command by construction) and sends one Move
// naming turn.version; a refused move is logged and the bot waits for its next Turn; on Ended it prints
// the results and exits 0. A dropped stream is reopened from the last Update's version.
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const USAGE = `usage: MATCHSERVER_ADDRESS=host:port MATCH_ID=id MATCH_TOKEN=token [MATCH_SEAT=name] node bot.js

Plays one seat of a match on a matchserver's Play stream (plaintext gRPC, e.g. a server on loopback).
MATCHSERVER_PROTOS names the folder holding matchserver/v1/matchserver.proto (default: the repository's
protos/, found from this script's place). Prints one line per move and the results; exits 0 at the end.`;

const FATAL = new Set(['INVALID_ARGUMENT', 'NOT_FOUND', 'PERMISSION_DENIED', 'UNAUTHENTICATED', 'UNIMPLEMENTED']);
const MAX_FAILURES = 20; // streams dropped in a row with nothing received, before giving up

function loadService() {
  const root = process.env.MATCHSERVER_PROTOS || path.resolve(__dirname, '..', '..', '..', 'protos');
  const definition = protoLoader.loadSync('matchserver/v1/matchserver.proto', {
    includeDirs: [root],
    keepCase: true, // field names as in the .proto: turn_version, view_json
    longs: Number, // versions are int64: small enough for a JS number
    enums: String,
    defaults: true,
    oneofs: true, // message.kind names the member of `oneof kind` that is set
  });
  return grpc.loadPackageDefinition(definition).matchserver.v1.MatchService;
}

// The seat's decision: one command text for this Turn, or '' to wait. `example` is legal by
// construction (what a deadline would play); the duel fixture's own rule is one line.
function decide(turn) {
  if (turn.game === 'duel') return 'pick 3'; // DUEL-1: 1 to 3; the highest pick scores
  return turn.example;
}

class Seat {
  constructor(stub, env) {
    this.stub = stub;
    this.matchId = env.MATCH_ID;
    this.seat = env.MATCH_SEAT || '';
    this.token = env.MATCH_TOKEN;
    this.version = 0; // the last version an Update carried: a new stream resumes after it
    this.moves = new Map(); // turn version -> the Move sent for it (resent as is on a resumed stream)
    this.name = this.seat || 'seat';
  }

  // One stream, until it closes: resolves {ended, code, details, trailer, received}.
  playOnce() {
    return new Promise((resolve) => {
      const metadata = new grpc.Metadata();
      metadata.add('authorization', `Bearer ${this.token}`);
      const call = this.stub.Play(metadata);
      const outcome = { ended: null, received: 0 };
      call.on('data', (message) => {
        outcome.received += 1;
        this.onMessage(call, message, outcome);
      });
      call.on('error', () => {}); // the 'status' below says how the stream ended
      call.on('status', (status) => {
        outcome.code = grpc.status[status.code];
        outcome.details = status.details;
        outcome.trailer = status.metadata && status.metadata.get('matchserver-resume-from')[0];
        resolve(outcome);
      });
      call.write({ start: { match_id: this.matchId, player: this.seat, from_version: this.version } });
    });
  }

  onMessage(call, message, outcome) {
    switch (message.kind) {
      case 'update':
        this.version = Math.max(this.version, Number(message.update.event.version));
        break;
      case 'turn':
        this.onTurn(call, message.turn);
        break;
      case 'result': {
        const result = message.result;
        if (!result.accepted) console.error(`${this.name}: move ${result.request_id} refused: ${result.code} ${result.message}`);
        break;
      }
      case 'ended':
        outcome.ended = message.ended;
        call.end(); // no more moves: the server closes the stream with OK
        break;
      default:
        break;
    }
  }

  onTurn(call, turn) {
    this.name = turn.seat || this.name;
    const version = Number(turn.version);
    let move = this.moves.get(version);
    if (move) {
      console.error(`${this.name}: turn ${version} again on a resumed stream: the same move, ${move.request_id}`);
    } else {
      const text = decide(turn);
      if (!text) {
        console.error(`${this.name}: no command for turn ${version} (${turn.status.phase}); waiting`);
        return;
      }
      move = { request_id: crypto.randomUUID(), turn_version: version, text };
      this.moves.set(version, move);
      console.log(`${this.name}: move at turn ${version} (${turn.status.phase}): ${text}`);
    }
    call.write({ move });
  }
}

async function main() {
  const env = process.env;
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const missing = ['MATCHSERVER_ADDRESS', 'MATCH_ID', 'MATCH_TOKEN'].filter((name) => !env[name]);
  if (missing.length) {
    console.error(`${missing.join(', ')} not set\n\n${USAGE}`);
    return 2;
  }
  const MatchService = loadService();
  const stub = new MatchService(env.MATCHSERVER_ADDRESS, grpc.credentials.createInsecure());
  const seat = new Seat(stub, env);
  let failures = 0;
  try {
    for (;;) {
      const outcome = await seat.playOnce();
      if (outcome.ended) {
        const ended = outcome.ended;
        console.log(`${seat.name}: the match is over at version ${ended.version}: ${ended.results_json}`);
        return 0;
      }
      if (FATAL.has(outcome.code)) {
        console.error(`${seat.name}: the server refused the stream: ${outcome.code} ${outcome.details}`);
        return 1;
      }
      // Ended on purpose (the trailer: a stream's maximum age, a slow read): resume at once. Dropped
      // (a cut connection, a server restarting): resume after a pause that grows while nothing comes.
      const trailer = outcome.trailer === undefined ? 'no trailer' : `matchserver-resume-from ${outcome.trailer}`;
      if (outcome.trailer !== undefined) failures = 0;
      else failures = outcome.received > 0 ? 1 : failures + 1;
      if (failures > MAX_FAILURES) {
        console.error(`${seat.name}: gave up after ${MAX_FAILURES} reconnections: ${outcome.code} ${outcome.details}`);
        return 1;
      }
      const wait = failures === 0 ? 0 : Math.min(5000, 100 * 2 ** (failures - 1));
      console.error(`${seat.name}: stream ended ${outcome.code} (${outcome.details}; ${trailer}); `
        + `resuming from version ${seat.version} in ${wait} ms`);
      await new Promise((done) => setTimeout(done, wait));
    }
  } finally {
    stub.close();
  }
}

main().then((code) => process.exit(code), (error) => {
  console.error(error);
  process.exit(1);
});
