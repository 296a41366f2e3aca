"""``make compose-check``: deploy/compose.cluster.yaml (or ``--file deploy/compose.yaml``)
brought up with podman-compose and checked from outside, as an operator would: through
Envoy's published port and Prometheus's and Grafana's HTTP APIs, with podman for what an
operator does to containers.

1. ``up``: every service whose image is here (PostgreSQL, three nodes, Envoy, Prometheus;
   Grafana, Jaeger and the browser client's page only where their images exist: they cannot
   be built here); serving once Envoy answers SERVING and every server's HEALTHCHECK passes.
2. A bot game played to the end through Envoy with the CLI, and its replay verified.
3. Prometheus: every node's target up, and the rules of alerts.yml loaded and evaluated.
4. The dashboard: with Grafana, its HTTP API has the provisioned dashboard and runs one of its
   panel queries with data; without (no Grafana image can be built here, deploy/README.md),
   every panel query is run against Prometheus, and at least one returns data.
5. Failover: a game's owner container is killed mid-game; the game goes on through Envoy on
   another node within the lease TTL + 2 s; the game is then played out and its replay
   verified; the killed node is started again and passes its health check. (The one-server
   file instead restarts its server mid-game, and the game goes on from its volume.)
6. ``stop`` (every node exits 0 after its drain), ``down -v``, and nothing of the project is
   left: no container, pod, volume or network.

With ``--tls`` the file runs with its TLS addition (deploy/compose.cluster.tls.yaml,
deploy/compose.tls.yaml): certificates are made for the run (an edge CA for clients, a second
CA for the servers behind Envoy and Envoy's client certificate), every client here checks
Envoy against the edge CA, the servers' HEALTHCHECK speaks their TLS, and a step checks that a
plaintext client and one that does not trust the edge CA are refused, each with a message
that names the cause.

Images: the compose file's, with YGGDRASIL_*_IMAGE overrides; where a stand-in built by
deploy/local/images.sh exists and no override is set, the stand-in."""

from __future__ import annotations

import argparse
import asyncio
import atexit
import functools
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import grpc
import yaml
from stack import (
    DEPLOY,
    STANDINS,
    VENV_BIN,
    CheckFailed,
    Steps,
    envoy_version,
    http_json,
    image_exists,
    podman,
    podman_env,
    project_version,
    require_tools,
    run,
    until,
)

from clients.bots import RandomBot
from clients.connection import ClientTls, connection_hint, open_channel, stub_for
from clients.sdk import play_seat
from localcluster.certs import ClusterPki, cluster_pki
from server.probe import ProbeTls, check
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1.diagnostics_service_pb2 import PingRequest
from yggdrasil.v1.diagnostics_service_pb2_grpc import DiagnosticsServiceStub

COMPOSE = DEPLOY / "compose.cluster.yaml"
# Each file's TLS addition (--tls).
TLS_ADDITIONS = {
    DEPLOY / "compose.cluster.yaml": DEPLOY / "compose.cluster.tls.yaml",
    DEPLOY / "compose.yaml": DEPLOY / "compose.tls.yaml",
}
ALERTS = DEPLOY / "prometheus" / "alerts.yml"
DASHBOARD = DEPLOY / "grafana" / "dashboards" / "yggdrasil.json"
ENVOY = "127.0.0.1:8080"
PROMETHEUS = "http://127.0.0.1:9090"
GRAFANA = "http://127.0.0.1:3000"
GAME_SERVICE = "yggdrasil.v1.GameService"
# The bound on a takeover: the lease TTL (YGGDRASIL_LEASE_TTL_S in the compose file)
# plus this much.
FAILOVER_SLACK_S = 2.0
# Decisions made before the owner is killed (a 2-player game has about 120).
DECISIONS_BEFORE_KILL = 20
GAME_ID = re.compile(r"[0-9a-f]{8,64}")
VARIABLE = re.compile(r"^\$\{(\w+):-")
# With --tls: how every client here reaches Envoy (None: plaintext), and the CLI's flags for it.
TLS: ClientTls | None = None
CLI_TLS: list[str] = []


class Compose:
    """podman-compose on one compose file, and the project's containers by service."""

    def __init__(self, path: Path, env: dict[str, str], overrides: tuple[Path, ...] = ()) -> None:
        self.path = path
        self.overrides = overrides  # more -f files (they add settings, no service or image)
        self.env = env
        self.spec: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
        self.project = str(self.spec["name"])

    def __call__(self, *args: str, timeout: float = 300.0) -> str:
        files = [part for f in (self.path, *self.overrides) for part in ("-f", str(f))]
        command = ["podman-compose", *files, *args]
        return run(command, timeout=timeout, env=self.env).stdout

    def container(self, service: str) -> str:
        names = self.listed("ps", "-a", f"--filter=label=com.docker.compose.service={service}")
        if len(names) != 1:
            raise CheckFailed(f"service {service}: containers {names}")
        return names[0]

    def listed(self, *command: str) -> list[str]:
        """Names of the project's objects that ``podman COMMAND`` lists (ps, pod ps, volume
        ls, network ls), found by the project label podman-compose gives them."""
        out = podman(
            *command, f"--filter=label=io.podman.compose.project={self.project}",
            "--format", "{{.Name}}" if command[0] != "ps" else "{{.Names}}",
        )  # fmt: skip
        return [line for line in out.splitlines() if line.strip()]

    def environment(self, service: str, name: str) -> str:
        value = self.spec["services"][service]["environment"][name]
        return str(value)


def compose_env(path: Path) -> tuple[dict[str, str], list[str]]:
    """The environment podman-compose runs the file at ``path`` with, and notes on the
    stand-in images it selects."""
    env = podman_env()
    notes = []
    if "YGGDRASIL_CLUSTER_SECRET" in path.read_text(encoding="utf-8"):
        # The nodes' shared secret (docs/cluster.md): a fresh one for this run.
        env.setdefault("YGGDRASIL_CLUSTER_SECRET", secrets.token_urlsafe(48))
    standins = {**STANDINS, "YGGDRASIL_ENVOY_IMAGE": f"localhost/yggdrasil-envoy:{envoy_version()}"}
    text = path.read_text(encoding="utf-8")
    for variable, standin in standins.items():
        if variable in text and not env.get(variable) and image_exists(standin):
            env[variable] = standin
            notes.append(f"{variable}={standin}")
    return env, notes


def wanted_services(compose: Compose) -> tuple[list[str], list[str]]:
    """The services whose images are here, and a note on each one left out: Grafana, Jaeger
    and the browser client's page cannot be built here (deploy/README.md)."""
    services, notes = [], []
    for name, service in compose.spec["services"].items():
        image = interpolate(str(service["image"]), compose.env)
        if image_exists(image):
            services.append(name)
        else:
            variable = VARIABLE.match(str(service["image"]))
            how = f"set {variable[1]}" if variable else "build it"
            notes.append(f"no image {image} for {name} ({how}): left out")
    return services, notes


def interpolate(value: str, env: dict[str, str]) -> str:
    """``${NAME:-default}`` as compose reads it."""
    return re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: env.get(m[1]) or m[2], value)


def servers(compose: Compose, services: list[str]) -> list[str]:
    """The services that run the server image (a node each, or the one server)."""
    return [
        s
        for s in services
        if str(compose.spec["services"][s]["image"]).startswith("${YGGDRASIL_IMAGE:-")
    ]


def healthy(container: str) -> bool:
    """The image's HEALTHCHECK, run now (podman runs it on a timer only under systemd)."""
    return run(["podman", "healthcheck", "run", container], check=False).returncode == 0


def mounted_volumes(containers: list[str]) -> list[str]:
    """The volumes, named or anonymous, that ``containers`` mount."""
    listing = "{{range .Mounts}}{{.Type}} {{.Name}}\n{{end}}"
    out = podman("inspect", "--format", listing, *containers)
    pairs = [line.split() for line in out.splitlines() if line.strip()]
    return sorted({p[1] for p in pairs if len(p) == 2 and p[0] == "volume"})


def volume_exists(name: str) -> bool:
    return run(["podman", "volume", "exists", name], check=False).returncode == 0


async def served_version() -> str:
    """The version Ping reports through Envoy: the project's, or CheckFailed."""
    channel = open_channel(ENVOY, tls=TLS)
    try:
        pong = await DiagnosticsServiceStub(channel).Ping(PingRequest(), timeout=5)
    finally:
        await channel.close()
    if pong.server_version != project_version():
        raise CheckFailed(f"Ping through Envoy says version {pong.server_version!r}")
    return str(pong.server_version)


# -- the game through Envoy ----------------------------------------------------------------


def cli(*args: str, token_file: Path, timeout: float = 120.0) -> str:
    """The yggdrasil CLI against Envoy, as a player runs it."""
    env = {**podman_env(), "YGGDRASIL_TOKEN_FILE": str(token_file)}
    return run(
        [str(VENV_BIN / "yggdrasil"), "--server", ENVOY, *CLI_TLS, *args],
        env=env,
        timeout=timeout,
    ).stdout


def play_and_verify(work: Path) -> str:
    """A 3-player game of random bots through Envoy, its replay verified."""
    token_file = work / "tokens.json"
    game = cli("create", "--players", "3", "--seed", "11", token_file=token_file).strip()
    if not GAME_ID.fullmatch(game):
        raise CheckFailed(f"create printed {game!r}, not a game id")
    env = {**podman_env(), "YGGDRASIL_TOKEN_FILE": str(token_file)}
    command = [str(VENV_BIN / "yggdrasil"), "--server", ENVOY, *CLI_TLS, "bot", game]
    bots = [
        subprocess.Popen(
            [*command, "--seat", str(seat), "--rng-seed", str(seat)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for seat in range(3)
    ]
    for bot in bots:
        out, _ = bot.communicate(timeout=180)
        if bot.returncode != 0 or "game over" not in out:
            raise CheckFailed(f"a bot of game {game} failed ({bot.returncode}): {out[-500:]}")
    return verify_replay(game, work)


def verify_replay(game: str, work: Path) -> str:
    """The game's replay through Envoy, re-played by the CLI (--verify) to the same end."""
    token_file = work / "tokens.json"
    out = work / f"{game}.json"
    done = run(
        [str(VENV_BIN / "yggdrasil"), "--server", ENVOY, *CLI_TLS, "replay", game, "--verify",
         "--out", str(out)],
        env={**podman_env(), "YGGDRASIL_TOKEN_FILE": str(token_file)},
    )  # fmt: skip
    said = (done.stdout + done.stderr).strip().splitlines()
    verdict = next((line for line in said if "replay verified" in line), None)
    if verdict is None:
        raise CheckFailed(f"replay of {game} not verified: {said[-3:]}")
    return f"{game}: {verdict}"


# -- Prometheus and the dashboard ----------------------------------------------------------


def prometheus_targets(expected: int) -> str:
    def all_up() -> str | None:
        answer = http_json(f"{PROMETHEUS}/api/v1/targets")
        targets = [t for t in answer["data"]["activeTargets"] if t["labels"]["job"] == "yggdrasil"]
        up = sorted(t["labels"]["instance"] for t in targets if t["health"] == "up")
        return ", ".join(up) if len(targets) == expected == len(up) else None

    return "targets up: " + until(
        all_up, timeout=60, interval=1, what=f"{expected} yggdrasil targets up in Prometheus"
    )


def prometheus_rules() -> str:
    wanted = {
        r["alert"]
        for g in yaml.safe_load(ALERTS.read_text(encoding="utf-8"))["groups"]
        for r in g["rules"]
        if "alert" in r
    }

    def evaluated() -> dict[str, str] | None:
        groups = http_json(f"{PROMETHEUS}/api/v1/rules")["data"]["groups"]
        health = {r["name"]: r["health"] for g in groups for r in g["rules"]}
        return None if "unknown" in health.values() else health

    health = until(evaluated, timeout=60, interval=1, what="every rule evaluated once")
    if set(health) != wanted:
        raise CheckFailed(f"rules loaded {sorted(health)}, alerts.yml has {sorted(wanted)}")
    broken = {name: h for name, h in health.items() if h != "ok"}
    if broken:
        raise CheckFailed(f"rules that fail to evaluate: {broken}")
    return f"{len(health)} alert rules loaded and evaluated"


def panel_queries() -> list[tuple[str, str]]:
    """(panel title, PromQL) of every panel, with the dashboard's variables as Grafana would
    fill them in for "All" instances."""
    dashboard = yaml.safe_load(DASHBOARD.read_text(encoding="utf-8"))
    found = []
    stack = list(dashboard["panels"])
    while stack:
        panel = stack.pop(0)
        stack.extend(panel.get("panels", []))
        for target in panel.get("targets", []):
            if target.get("expr"):
                expr = target["expr"].replace("$__rate_interval", "1m")
                found.append((str(panel.get("title", "")), expr.replace("$instance", ".*")))
    return found


def dashboard_via_prometheus() -> str:
    """Every panel query runs on Prometheus without an error; at least one returns data."""
    queries = panel_queries()

    def answered() -> list[str] | None:
        with_data = []
        for title, expr in queries:
            answer = http_json(f"{PROMETHEUS}/api/v1/query?" + urlencode({"query": expr}))
            if answer.get("status") != "success":
                raise CheckFailed(f"panel {title!r}: {expr}: {answer}")
            if answer["data"]["result"]:
                with_data.append(title)
        return with_data or None

    with_data = until(answered, timeout=45, interval=3, what="a panel query with data")
    example = next((t for t in with_data if t != "Up"), with_data[0])
    return (
        f"no Grafana here: {len(queries)} panel queries run on Prometheus without an error, "
        f"{len(with_data)} with data (e.g. {example!r})"
    )


def dashboard_via_grafana(password: str) -> str:
    """Grafana's HTTP API: the provisioned dashboard is there, and one of its panel queries,
    run by Grafana on its provisioned datasource, returns data."""
    auth = ("admin", password)
    until(
        lambda: http_json(f"{GRAFANA}/api/health").get("database") == "ok",
        timeout=60, interval=1, what="Grafana healthy",
    )  # fmt: skip
    uid = str(yaml.safe_load(DASHBOARD.read_text(encoding="utf-8"))["uid"])
    found = http_json(f"{GRAFANA}/api/search?type=dash-db&query=Yggdrasil", auth=auth)
    if uid not in {d.get("uid") for d in found}:
        raise CheckFailed(f"Grafana has no dashboard {uid}: {found}")
    dashboard = http_json(f"{GRAFANA}/api/dashboards/uid/{uid}", auth=auth)["dashboard"]
    title, expr = panel_queries()[1]  # "Games hosted": a gauge every node exports

    def queried() -> bool:
        answer = http_json(
            f"{GRAFANA}/api/ds/query",
            data={
                "from": "now-5m",
                "to": "now",
                "queries": [{
                    "refId": "A", "datasource": {"uid": "yggdrasil-prometheus"},
                    "expr": expr, "instant": True,
                }],
            },
            auth=auth,
        )  # fmt: skip
        frames = answer["results"]["A"].get("frames", [])
        return any(f.get("data", {}).get("values") for f in frames)

    until(queried, timeout=45, interval=3, what=f"Grafana's answer to panel {title!r}")
    return f"Grafana: dashboard {dashboard['title']!r} provisioned; panel {title!r} has data"


# -- failover ------------------------------------------------------------------------------


async def _decide(stub: Any, game_id: str, tokens: list[str], key: str) -> None:
    """One decision of the first seat the game awaits (its first legal action)."""
    spectator = gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator())
    view = (await stub.GetView(spectator, timeout=2)).view
    if view.status != gp.GAME_STATUS_IN_PROGRESS:
        raise CheckFailed(f"game {game_id} is no longer in progress ({view.status})")
    seat = next(s for s in view.awaiting_seats if s not in view.committed_seats)
    yours = gs.GetViewRequest(game_id=game_id, seat_token=tokens[seat])
    mine = (await stub.GetView(yours, timeout=2)).view
    request = gs.SubmitActionRequest(
        game_id=game_id,
        seat_token=tokens[seat],
        legal_index=0,
        state_version=mine.state_version,
        idempotency_key=key,
    )
    await stub.SubmitAction(request, timeout=2)


def owner(compose: Compose, game_id: str) -> tuple[str, int]:
    """(node id, epoch) of the game's owner, from the database, as an operator would ask."""
    if not GAME_ID.fullmatch(game_id):
        raise CheckFailed(f"not a game id: {game_id!r}")
    database = compose.container("postgres")
    sql = f"SELECT owner, epoch FROM games WHERE game_id = '{game_id}'"
    out = podman("exec", database, "psql", "-U", "yggdrasil", "-d", "yggdrasil", "-tA", "-c", sql)
    member, epoch = out.split("|")
    return member.split("/", 1)[0], int(epoch)


async def _new_game(stub: Any) -> tuple[str, list[str]]:
    """A 2-player game through Envoy, both seats joined, DECISIONS_BEFORE_KILL decisions in."""
    created = await stub.CreateGame(
        gs.CreateGameRequest(options=gp.GameOptions(player_count=2, seed=5)), timeout=5
    )
    game_id = str(created.game_id)
    tokens = []
    for seat in range(2):
        joined = await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=seat), timeout=5)
        tokens.append(str(joined.seat_token))
    for n in range(DECISIONS_BEFORE_KILL):
        await _decide(stub, game_id, tokens, f"before-{n}")
    return game_id, tokens


async def _next_decision(stub: Any, game_id: str, tokens: list[str], key: str) -> int:
    """Try the game's next decision every 0.1 s until it is applied; the tries it took."""
    start = time.monotonic()
    attempts = 0
    while True:
        attempts += 1
        try:
            await _decide(stub, game_id, tokens, key)
            return attempts
        except grpc.aio.AioRpcError:
            if time.monotonic() - start > 60:
                raise
            await asyncio.sleep(0.1)


async def _play_out(game_id: str, tokens: list[str], work: Path) -> str:
    results = await asyncio.wait_for(
        asyncio.gather(
            *[
                play_seat(
                    ENVOY, game_id, RandomBot(), token=tokens[s], rng=random.Random(s), tls=TLS
                )
                for s in range(2)
            ]
        ),
        180,
    )
    return f"played out: ranks {results[0].ranks}, replay {verify_replay(game_id, work)}"


async def restart_mid_game(compose: Compose, server: str, work: Path) -> list[str]:
    """The one server restarted (SIGTERM, then started on its volume) mid-game: the game
    goes on from the store, and is played out and verified."""
    # No resending inside the channel (patience 0): _next_decision tries every 0.1 s itself,
    # so the time measured is the takeover's, not a client's growing backoff between resends.
    channel = open_channel(ENVOY, tls=TLS, patience_s=0)
    try:
        stub = stub_for(channel)
        game_id, tokens = await _new_game(stub)
        name = compose.container(server)
        start = time.monotonic()
        podman("restart", "--time", "30", name, timeout=60)
        attempts = await _next_decision(stub, game_id, tokens, "after-restart")
        seconds = time.monotonic() - start
        note = (
            f"restarted after {DECISIONS_BEFORE_KILL} decisions; the next one applied "
            f"{seconds:.1f} s after the restart began ({attempts} tries)"
        )
        return [note, await _play_out(game_id, tokens, work)]
    finally:
        await channel.close()


async def failover(compose: Compose, ttl_s: float, work: Path) -> tuple[list[str], str]:
    """Kill the owner mid-game; the next decision through Envoy succeeds within the TTL plus
    FAILOVER_SLACK_S, on another node; then the game is played out and verified."""
    notes = []
    # No resending inside the channel (patience 0): _next_decision tries every 0.1 s itself,
    # so the time measured is the takeover's, not a client's growing backoff between resends.
    channel = open_channel(ENVOY, tls=TLS, patience_s=0)
    try:
        stub = stub_for(channel)
        game_id, tokens = await _new_game(stub)
        victim, epoch = owner(compose, game_id)
        killed = time.monotonic()
        podman("kill", "--signal", "KILL", compose.container(victim))
        attempts = await _next_decision(stub, game_id, tokens, "after-kill")
        seconds = time.monotonic() - killed
        heir, new_epoch = owner(compose, game_id)
        notes.append(
            f"killed {victim} after {DECISIONS_BEFORE_KILL} decisions; the next one applied "
            f"{seconds:.1f} s later on {heir} (epoch {epoch} -> {new_epoch}, {attempts} tries; "
            f"limit TTL {ttl_s:g} + {FAILOVER_SLACK_S:g} s)"
        )
        if heir == victim or new_epoch <= epoch:
            raise CheckFailed(f"game {game_id} not taken over: {notes[-1]}")
        if seconds > ttl_s + FAILOVER_SLACK_S:
            raise CheckFailed(f"takeover too slow: {notes[-1]}")
        notes.append(await _play_out(game_id, tokens, work))
    finally:
        await channel.close()
    return notes, victim


# -- TLS -----------------------------------------------------------------------------------


def make_certificates(directory: Path) -> ClusterPki:
    """The run's certificates, as the TLS additions name them: Envoy's for localhost, the
    servers' for their service names (and localhost, for their HEALTHCHECK).
    Readable by the containers' users (throwaway keys: 0644)."""
    pki = cluster_pki(
        directory,
        node_names=("node1", "node2", "node3", "yggdrasil", "localhost"),
        node_ips=("127.0.0.1",),
    )
    directory.chmod(0o755)
    for key in (pki.edge_key, pki.node_key, pki.envoy_key):
        key.chmod(0o644)
    return pki


async def strangers_refused(pki: ClusterPki) -> list[str]:
    """A plaintext client and one that trusts only the cluster's CA (not Envoy's) are refused
    by Envoy, each told why; one that trusts the edge CA gets in."""
    notes = []
    for what, tls, cause in (
        ("plaintext", None, "expect TLS"),
        ("another CA", ClientTls(pki.cluster_ca), "not signed by a CA this client trusts"),
    ):
        channel = open_channel(ENVOY, tls=tls)
        try:
            await DiagnosticsServiceStub(channel).Ping(PingRequest(), timeout=5)
        except grpc.aio.AioRpcError as error:
            hint = connection_hint(error, tls is not None)
            if cause not in hint:
                raise CheckFailed(
                    f"{what}: refused, but told {error.details()!r} ({hint!r})"
                ) from None
            notes.append(f"{what}: refused ({hint})")
        else:
            raise CheckFailed(f"a {what} client got through Envoy's TLS listener")
        finally:
            await channel.close()
    return notes


# -- the check -----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--keep", action="store_true", help="on a failure, leave the stack up to look at"
    )
    parser.add_argument("--file", type=Path, default=COMPOSE, help="the compose file")
    parser.add_argument(
        "--tls",
        action="store_true",
        help="the cluster with deploy/compose.cluster.tls.yaml: TLS on every hop",
    )
    args = parser.parse_args(argv)
    require_tools("podman", "podman-compose")
    env, image_notes = compose_env(args.file)
    overrides: tuple[Path, ...] = ()
    pki: ClusterPki | None = None
    probe_tls: ProbeTls | None = None
    if args.tls:
        global TLS, CLI_TLS
        tls_dir = Path(tempfile.mkdtemp(prefix="compose-check-tls-"))
        atexit.register(shutil.rmtree, tls_dir, True)
        pki = make_certificates(tls_dir)
        env["YGGDRASIL_TLS_DIR"] = str(tls_dir)
        addition = TLS_ADDITIONS.get(args.file.resolve())
        if addition is None:
            parser.error(f"--tls: no TLS addition for {args.file}")
        overrides = (addition,)
        TLS = ClientTls(pki.edge_ca)
        CLI_TLS = ["--ca-file", str(pki.edge_ca)]
        probe_tls = ProbeTls(pki.edge_ca, server_name="localhost")
    compose = Compose(args.file, env, overrides)
    services, service_notes = wanted_services(compose)
    node_services = servers(compose, services)
    steps = Steps("compose-check")
    if compose.listed("ps", "-a"):
        print(f"compose-check: taking down what a previous run left of {compose.project}")
        compose("down", "-v")
    up = False
    try:
        with steps.step(f"up: {' '.join(services)}") as notes:
            notes.extend(image_notes + service_notes)
            up = True  # from here on, a failure takes down what was started
            compose("up", "-d", "--no-deps", *services)
            until(
                lambda: check(ENVOY, GAME_SERVICE, 1.0, probe_tls).serving,
                timeout=90, interval=0.5, what=f"Envoy on {ENVOY} answers SERVING",
            )  # fmt: skip
            for service in node_services:
                name = compose.container(service)
                until(
                    functools.partial(healthy, name),
                    timeout=60, interval=0.5, what=f"{name}'s HEALTHCHECK passes",
                )  # fmt: skip
            notes.append(f"version {asyncio.run(served_version())} through Envoy")
        if pki is not None:
            with steps.step("TLS: strangers refused at Envoy, each told why") as notes:
                notes.extend(asyncio.run(strangers_refused(pki)))
        with tempfile.TemporaryDirectory(prefix="compose-check-") as work:
            with steps.step("a bot game through Envoy, replay verified") as notes:
                notes.append(play_and_verify(Path(work)))
            with steps.step("Prometheus: targets up, alert rules loaded") as notes:
                notes.append(prometheus_targets(len(node_services)))
                notes.append(prometheus_rules())
            with steps.step("the dashboard's queries") as notes:
                if "grafana" in services:
                    password = env.get("GRAFANA_ADMIN_PASSWORD", "admin")
                    notes.append(dashboard_via_grafana(password))
                else:
                    notes.append(dashboard_via_prometheus())
            if "postgres" in services:
                with steps.step("a node killed mid-game") as notes:
                    ttl_s = float(compose.environment(node_services[0], "YGGDRASIL_LEASE_TTL_S"))
                    said, victim = asyncio.run(failover(compose, ttl_s, Path(work)))
                    notes.extend(said)
                    restart = compose.container(victim)
                    podman("start", restart)
                    until(
                        lambda: healthy(restart),
                        timeout=60, interval=0.5, what=f"{restart} restarted and healthy",
                    )  # fmt: skip
                    notes.append(f"{victim} started again and healthy")
            else:
                with steps.step("the server restarted mid-game") as notes:
                    (server,) = node_services
                    notes.extend(asyncio.run(restart_mid_game(compose, server, Path(work))))
        with steps.step("stop, down -v, nothing left") as notes:
            compose("stop", timeout=180)
            codes = {
                s: podman("inspect", "--format", "{{.State.ExitCode}}", compose.container(s))
                for s in services
            }
            notes.append("exit codes " + ", ".join(f"{s} {c}" for s, c in codes.items()))
            unclean = {s: c for s, c in codes.items() if s in node_services and c != "0"}
            if unclean:
                raise CheckFailed(f"nodes that did not stop cleanly on SIGTERM: {unclean}")
            volumes = mounted_volumes([compose.container(s) for s in services])
            compose("down", "-v")
            up = False
            kept = [v for v in volumes if volume_exists(v)]
            if kept:
                raise CheckFailed(f"volumes the containers used, left by down -v: {kept}")
            left = {
                what: compose.listed(*command)
                for what, command in {
                    "containers": ("ps", "-a"),
                    "pods": ("pod", "ps"),
                    "volumes": ("volume", "ls"),
                    "networks": ("network", "ls"),
                }.items()
            }
            left = {what: names for what, names in left.items() if names}
            if left:
                raise CheckFailed(f"left behind by down -v: {left}")
    except BaseException:
        if up:
            for service in services:
                name = f"{compose.project}_{service}_1"
                print(f"---- {name} (last lines)", file=sys.stderr)
                print(podman("logs", "--tail", "15", name, check=False), file=sys.stderr)
            if not args.keep:
                compose("down", "-v")
        raise
    steps.summary()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CheckFailed as failure:
        print(f"compose-check: FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
