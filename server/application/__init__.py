"""The application layer: each use case loads a match, checks the caller, decides (the engine, or the
match's envelope), and appends through the unit of work. server/grpc/ calls it; it never calls back up."""
