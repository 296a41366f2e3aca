"""The committed TypeScript and Go client stubs (make stubs) match the API.

A cheap guard beside `make stubs-check`: every .proto has its generated TS and Go files, and
those name every RPC of GameService (read from the Python descriptor), so an RPC added to
proto/ without regenerating the other languages fails `make test` too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from yggdrasil.v1 import game_service_pb2

ROOT = Path(__file__).resolve().parents[2]
PROTO_DIR = ROOT / "proto" / "yggdrasil" / "v1"
TS_DIR = ROOT / "clients" / "ts" / "src" / "gen" / "yggdrasil" / "v1"
GO_DIR = ROOT / "clients" / "go" / "yggdrasil" / "v1"
GEN_SCRIPT = ROOT / "scripts" / "gen_stubs.sh"

SERVICE = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]
RPCS = [method.name for method in SERVICE.methods]
PROTOS = sorted(p.stem for p in PROTO_DIR.glob("*.proto"))


def _pinned(name: str) -> str:
    match = re.search(rf"^{name}=(\S+)", GEN_SCRIPT.read_text(), re.MULTILINE)
    assert match, f"{name} not found in {GEN_SCRIPT}"
    return match.group(1)


def test_rpc_list_is_read() -> None:
    assert "SubmitAction" in RPCS and len(RPCS) >= 9
    assert "game_service" in PROTOS


@pytest.mark.parametrize("proto", PROTOS)
def test_every_proto_has_generated_files(proto: str) -> None:
    assert (TS_DIR / f"{proto}.ts").is_file(), f"run make stubs: {proto}.ts missing"
    assert (GO_DIR / f"{proto}.pb.go").is_file(), f"run make stubs: {proto}.pb.go missing"


def test_no_generated_file_without_proto() -> None:
    ts = {p.stem for p in TS_DIR.glob("*.ts")}
    go = {p.name.removesuffix("_grpc.pb.go").removesuffix(".pb.go") for p in GO_DIR.glob("*.go")}
    assert ts == set(PROTOS), "stale TypeScript stubs: run make stubs"
    assert go == set(PROTOS), "stale Go stubs: run make stubs"


@pytest.mark.parametrize("rpc", RPCS)
def test_typescript_client_has_rpc(rpc: str) -> None:
    text = (TS_DIR / "game_service.ts").read_text()
    assert f'path: "/yggdrasil.v1.GameService/{rpc}"' in text
    method = rpc[0].lower() + rpc[1:]
    assert re.search(rf"^  {method}\(", text, re.MULTILINE), f"GameServiceClient.{method}"


@pytest.mark.parametrize("rpc", RPCS)
def test_go_client_has_rpc(rpc: str) -> None:
    text = (GO_DIR / "game_service_grpc.pb.go").read_text()
    assert f'"/yggdrasil.v1.GameService/{rpc}"' in text
    assert re.search(rf"^\t{rpc}\(ctx context\.Context", text, re.MULTILINE), f"client {rpc}"


def test_generator_versions_match_the_pins() -> None:
    ts_text = (TS_DIR / "game_service.ts").read_text()
    assert f"//   protoc-gen-ts_proto  v{_pinned('TS_PROTO_VERSION')}\n" in ts_text
    go_text = (GO_DIR / "game_service.pb.go").read_text()
    assert f"// \tprotoc-gen-go v{_pinned('GO_PLUGIN_VERSION')}\n" in go_text
    package_json = (ROOT / "clients" / "ts" / "package.json").read_text()
    assert f'"ts-proto": "{_pinned("TS_PROTO_VERSION")}"' in package_json
