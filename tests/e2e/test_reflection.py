"""Server reflection (issue 27): `grpc.reflection.v1` beside `v1alpha`, and our descriptors served with
the comments of protos/, so a reflection client (grpcurl describe) shows what each RPC and field means."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2 as rpb

from tests.support.server import ServerThread


def ask(server: ServerThread, service: str, request: rpb.ServerReflectionRequest) -> rpb.ServerReflectionResponse:
    with grpc.insecure_channel(server.address) as channel:
        call = channel.stream_stream(
            f"/{service}/ServerReflectionInfo",
            request_serializer=rpb.ServerReflectionRequest.SerializeToString,
            response_deserializer=rpb.ServerReflectionResponse.FromString,
        )
        return next(iter(call(iter([request]), timeout=30)))


@pytest.mark.parametrize("version", ["v1", "v1alpha"])
def test_a_reflection_client_of_either_version_lists_the_services(server: ServerThread, version: str) -> None:
    reply = ask(server, f"grpc.reflection.{version}.ServerReflection", rpb.ServerReflectionRequest(list_services=""))
    names = {service.name for service in reply.list_services_response.service}
    assert {
        "matchserver.v1.MatchService",
        "matchserver.v1.ArenaService",
        "grpc.reflection.v1.ServerReflection",
    } <= names


def comments(proto: descriptor_pb2.FileDescriptorProto) -> list[str]:
    return [location.leading_comments.strip() for location in proto.source_code_info.location]


def test_the_served_descriptors_carry_the_comments_of_the_protos(server: ServerThread) -> None:
    request = rpb.ServerReflectionRequest(file_containing_symbol="matchserver.v1.MatchService")
    reply = ask(server, "grpc.reflection.v1.ServerReflection", request)
    files = [
        descriptor_pb2.FileDescriptorProto.FromString(data)
        for data in reply.file_descriptor_response.file_descriptor_proto
    ]
    service_file = next(f for f in files if f.name == "matchserver/v1/matchserver.proto")
    said = comments(service_file)
    assert any(text.startswith("One seat's whole game on one stream") for text in said)  # the Play RPC
    assert any(text.startswith("Submit a command as the caller's player") for text in said)
    assert {f.name for f in files} >= {"matchserver/cookoff/v1/cookoff.proto"}  # its imports come along
