"""The match server: event store, gRPC services, auth, subscriptions and the deadline ticker."""
