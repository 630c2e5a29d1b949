"""The gRPC edge: the services, their plumbing and every protobuf conversion. It calls the application
and never the other way round; nothing else in server/ imports generated code."""
