// boardgame.io 0.50.2's server with the duel: `node bgio_server.js memory` (its default in-memory
// storage) or `node bgio_server.js flatfile DIR` (its FlatFile storage, node-persist files in DIR).
// Prints "listening on 127.0.0.1:PORT" once it serves.
'use strict';

const { Server, FlatFile } = require('boardgame.io/server');
const { Duel } = require('./bgio_game');

const [storage, dir] = process.argv.slice(2);
const options = { games: [Duel], origins: ['*'] };
if (storage === 'flatfile') options.db = new FlatFile({ dir, logging: false });
const server = Server(options);
server.run({ port: 0 }).then(({ appServer }) => {
  console.log(`listening on 127.0.0.1:${appServer.address().port}`);
});
process.on('SIGTERM', () => process.exit(0));
