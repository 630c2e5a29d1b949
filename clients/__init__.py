"""Thin clients over the generated gRPC stubs: the client library, `matchctl`, example bots."""
