"""gRPC server reflection, as `grpc.reflection.v1` and `v1alpha` (grpcio-reflection ships only v1alpha; the
two protocols are the same messages under another package name, so one servicer serves both), with our
own files' descriptors as protoc made them with their source comments (`make proto` writes them to
matchserver/descriptors.binpb), so `grpcurl describe` shows what each field means."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import _async, reflection_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2 as rpb

import matchserver

log = logging.getLogger(__name__)
V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
V1ALPHA_SERVICE_NAME = "grpc.reflection.v1alpha.ServerReflection"
DESCRIPTORS = Path(matchserver.__file__).parent / "descriptors.binpb"


def commented_files() -> dict[str, bytes]:
    """Each of our .proto files' FileDescriptorProto with its source comments, by file name."""
    if not DESCRIPTORS.exists():
        log.warning("%s is missing (run make proto): reflection serves descriptors without comments", DESCRIPTORS)
        return {}
    files = descriptor_pb2.FileDescriptorSet.FromString(DESCRIPTORS.read_bytes()).file
    return {file.name: file.SerializeToString() for file in files if file.name.startswith("matchserver/")}


class CommentedReflection(_async.ReflectionServicer):  # type: ignore[misc]
    """The v1alpha servicer, answering with the commented descriptors where it has them."""

    def __init__(self, service_names: Sequence[str], files: dict[str, bytes]) -> None:
        super().__init__(service_names)
        self._files = files

    def _file_by_filename(self, request: Any, filename: str) -> Any:
        return self._commented(super()._file_by_filename(request, filename))

    def _file_containing_symbol(self, request: Any, fully_qualified_name: str) -> Any:
        return self._commented(super()._file_containing_symbol(request, fully_qualified_name))

    def _commented(self, response: Any) -> Any:
        if not response.HasField("file_descriptor_response"):
            return response
        protos = response.file_descriptor_response.file_descriptor_proto
        for index, serialized in enumerate(protos):
            name = descriptor_pb2.FileDescriptorProto.FromString(serialized).name
            if name in self._files:
                protos[index] = self._files[name]
        return response


def enable_reflection(service_names: Sequence[str], server: grpc.aio.Server) -> None:
    names = (*service_names, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)
    servicer = CommentedReflection(names, commented_files())
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)  # v1alpha
    method = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=rpb.ServerReflectionRequest.FromString,
        response_serializer=rpb.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(V1_SERVICE_NAME, {"ServerReflectionInfo": method}),)
    )


__all__ = ["V1_SERVICE_NAME", "enable_reflection"]
