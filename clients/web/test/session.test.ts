import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { beforeEach, describe, expect, it } from "vitest";
import type { GameClient } from "../src/api.js";
import { parseRoute } from "../src/components/App.js";
import { describeEvent } from "../src/events.js";
import { areaName } from "../src/names.js";
import type { View } from "../src/gen/yggdrasil/v1/game_pb.js";
import { EventSchema, GameStatus, ViewSchema } from "../src/gen/yggdrasil/v1/game_pb.js";
import { WatchGameResponseSchema } from "../src/gen/yggdrasil/v1/game_service_pb.js";
import { GameSession, joinSeat } from "../src/session.js";
import { SeatTokens } from "../src/tokens.js";
import { catalog, events, view } from "./fixtures.js";

type Calls = Record<string, unknown[]>;

/** A client whose methods are the given functions; every call's request is recorded. */
function fakeClient(methods: Record<string, (req: any) => unknown>, calls: Calls = {}): GameClient {
  const client: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(methods)) {
    client[name] = (req: unknown) => {
      (calls[name] ??= []).push(req);
      return fn(req);
    };
  }
  return client as unknown as GameClient;
}

function withSeq(v: View, lastSequence: bigint, stateVersion = v.stateVersion): View {
  return create(ViewSchema, { ...v, lastSequence, stateVersion });
}

const seatView = view("action-seat");

describe("GameSession", () => {
  it("keeps the newest view whatever order views arrive in", () => {
    const s = new GameSession(fakeClient({}), "g", "tok");
    s.acceptView(withSeq(seatView, 10n));
    s.acceptView(withSeq(seatView, 7n));
    expect(s.state.view!.lastSequence).toBe(10n);
    s.acceptView(withSeq(seatView, 12n));
    expect(s.state.view!.lastSequence).toBe(12n);
  });

  it("a stale decision refetches the view and asks again, without an error", async () => {
    const calls: Calls = {};
    const fresh = withSeq(seatView, seatView.lastSequence + 3n, seatView.stateVersion + 2n);
    const client = fakeClient(
      {
        submitAction: () => Promise.reject(new ConnectError("stale state_version", Code.FailedPrecondition)),
        getView: () => Promise.resolve({ view: fresh }),
      },
      calls,
    );
    const s = new GameSession(client, "g", "tok");
    s.acceptView(seatView);
    await s.choose(0);
    expect(calls.getView).toHaveLength(1);
    expect(s.state.view).toBe(fresh);
    expect(s.state.notice).toMatch(/moved on/);
    expect(s.state.error).toBeUndefined();
    expect(s.state.submitting).toBe(false);
  });

  it("resends an unanswered decision with the same idempotency key", async () => {
    const calls: Calls = {};
    let failures = 2;
    const after = withSeq(seatView, seatView.lastSequence + 1n, seatView.stateVersion + 1n);
    const client = fakeClient(
      {
        submitAction: () =>
          failures-- > 0
            ? Promise.reject(new ConnectError("connection reset", Code.Unavailable))
            : Promise.resolve({ view: after, events: [], stateVersion: after.stateVersion, duplicate: false }),
      },
      calls,
    );
    const s = new GameSession(client, "g", "tok");
    s.acceptView(seatView);
    await s.choose(3);
    const sent = calls.submitAction as { idempotencyKey: string; stateVersion: bigint; choice: { value: number } }[];
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((r) => r.idempotencyKey)).size).toBe(1);
    expect(sent[0].choice.value).toBe(3);
    expect(sent[0].stateVersion).toBe(seatView.stateVersion);
    expect(s.state.view).toBe(after);
  });

  it("resends a decision whose node died after taking it (INTERNAL) with the same key", async () => {
    // Issue 26: Envoy answers INTERNAL ("RST_STREAM with error code 2") when the cluster node
    // that took the call dies; the decision may have been applied: resend it, same key.
    const calls: Calls = {};
    const ends = [new ConnectError("Received RST_STREAM with error code 2", Code.Internal),
                  new ConnectError("upstream reset", Code.Unknown)];
    const after = withSeq(seatView, seatView.lastSequence + 1n, seatView.stateVersion + 1n);
    const client = fakeClient(
      {
        submitAction: () =>
          ends.length
            ? Promise.reject(ends.shift())
            : Promise.resolve({ view: after, events: [], stateVersion: after.stateVersion, duplicate: true }),
      },
      calls,
    );
    const s = new GameSession(client, "g", "tok");
    s.acceptView(seatView);
    await s.choose(1);
    const sent = calls.submitAction as { idempotencyKey: string }[];
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((r) => r.idempotencyKey)).size).toBe(1);
    expect(s.state.notice).toBeUndefined();
    expect(s.state.view).toBe(after);
  });

  it("resumes a stream a proxy reset (INTERNAL) from the last event it saw", async () => {
    const calls: Calls = {};
    const finished = withSeq(view("finished-seat0"), 50n);
    const event = create(EventSchema, { sequence: 41n, stateVersion: 30n });
    let opened = 0;
    const client = fakeClient(
      {
        getView: () => Promise.resolve({ view: withSeq(seatView, 40n) }),
        watchGame: () =>
          (async function* () {
            opened += 1;
            if (opened === 1) {
              yield create(WatchGameResponseSchema, { sequence: 41n, event });
              throw new ConnectError("Received RST_STREAM with error code 2", Code.Internal);
            }
            yield create(WatchGameResponseSchema, { sequence: 50n, view: finished });
          })(),
      },
      calls,
    );
    const s = new GameSession(client, "g", "tok", undefined, 1);
    await s.run();
    const watches = calls.watchGame as { fromSequence: bigint }[];
    expect(watches.map((w) => w.fromSequence)).toEqual([expect.any(BigInt), 42n]);
    expect(s.state.connection).toBe("ended");
    expect(s.state.error).toBeUndefined();
  });

  it("reconnects a dropped stream from the last event it saw", async () => {
    const calls: Calls = {};
    const finished = withSeq(view("finished-seat0"), 50n);
    const event = create(EventSchema, { sequence: 41n, stateVersion: 30n });
    let opened = 0;
    const client = fakeClient(
      {
        getView: () => Promise.resolve({ view: withSeq(seatView, 40n) }),
        watchGame: () =>
          (async function* () {
            opened += 1;
            if (opened === 1) {
              yield create(WatchGameResponseSchema, { sequence: 41n, event });
              throw new ConnectError("stream reset", Code.Unavailable);
            }
            yield create(WatchGameResponseSchema, { sequence: 50n, view: finished });
          })(),
      },
      calls,
    );
    const s = new GameSession(client, "g", "tok", undefined, 1);
    await s.run();
    const watches = calls.watchGame as { fromSequence: bigint }[];
    expect(watches).toHaveLength(2);
    expect(watches[1].fromSequence).toBe(42n);
    expect(s.state.view!.status).toBe(GameStatus.FINISHED);
    expect(s.state.connection).toBe("ended");
    expect(s.state.log.map((e) => e.sequence)).toEqual([41n]);
  });

  it("a seat token the server no longer accepts turns the page into a spectator", async () => {
    const calls: Calls = {};
    const storage = new Map<string, string>();
    const tokens = new SeatTokens(fakeStorage(storage));
    tokens.put({ gameId: "g", seat: 1, token: "tok", name: "", confirmed: true });
    const finished = view("finished-seat0");
    const client = fakeClient(
      {
        getView: (req: { viewer: { case: string } }) =>
          req.viewer.case === "seatToken"
            ? Promise.reject(new ConnectError("wrong seat token", Code.PermissionDenied))
            : Promise.resolve({ view: finished }),
        watchGame: () => (async function* () {})(),
      },
      calls,
    );
    const s = new GameSession(client, "g", "tok", tokens, 1);
    await s.run();
    expect(s.state.token).toBeUndefined();
    expect(tokens.get("g")).toBeUndefined();
    expect((calls.getView as { viewer: { case: string } }[]).map((r) => r.viewer.case)).toEqual(["seatToken", "spectator"]);
    expect(s.state.error).toBeUndefined();
  });
});

function fakeStorage(map: Map<string, string>): Storage {
  return {
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, v),
    removeItem: (k: string) => void map.delete(k),
    clear: () => map.clear(),
    key: () => null,
    get length() {
      return map.size;
    },
  };
}

describe("joining a seat", () => {
  let storage: Map<string, string>;
  let tokens: SeatTokens;
  beforeEach(() => {
    storage = new Map();
    tokens = new SeatTokens(fakeStorage(storage));
  });

  it("saves the token before JoinGame and reuses it after a lost reply", async () => {
    const seen: string[] = [];
    let lose = true;
    const client = fakeClient({
      joinGame: (req: { seatToken: string }) => {
        expect(tokens.get("g")?.token).toBe(req.seatToken); // already saved
        seen.push(req.seatToken);
        if (lose) {
          lose = false;
          return Promise.reject(new ConnectError("lost", Code.Unavailable));
        }
        return Promise.resolve({ seat: 2, seatToken: req.seatToken, duplicate: true });
      },
    });
    await expect(joinSeat(client, tokens, "g", 2, "me")).rejects.toThrow();
    expect(tokens.get("g")?.confirmed).toBe(false);
    const record = await joinSeat(client, tokens, "g", 2, "me");
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0].length).toBeGreaterThanOrEqual(32);
    expect(record).toMatchObject({ seat: 2, confirmed: true, token: seen[0] });
  });

  it("forgets the token when the seat is taken", async () => {
    const client = fakeClient({ joinGame: () => Promise.reject(new ConnectError("seat 1 is claimed", Code.AlreadyExists)) });
    await expect(joinSeat(client, tokens, "g", 1, "")).rejects.toThrow(/claimed/);
    expect(tokens.get("g")).toBeUndefined();
  });
});

describe("the event log", () => {
  it("has a line for every recorded event, with Glory reasons and card names", () => {
    const cat = catalog();
    const names = ["Astrid", "Bjorn", "Cora"];
    const lines = events().map((e) => describeEvent(e, cat, names));
    expect(lines.length).toBeGreaterThan(100);
    for (const line of lines) {
      expect(line.text).not.toContain("does not know");
      expect(line.text).not.toMatch(/\[#\d+\]/);
    }
    const kinds = new Set(lines.map((l) => l.kind));
    for (const kind of ["phase", "action", "battle", "pillage", "glory", "ragnarok", "end"]) expect(kinds).toContain(kind);
    // A battle's totals and winner, Ragnarök's province, the end-game bonuses in words.
    expect(lines.some((l) => l.kind === "battle" && /wins|tie/.test(l.text) && /\d/.test(l.text))).toBe(true);
    expect(lines.some((l) => l.kind === "ragnarok" && /destroys \w+/.test(l.text))).toBe(true);
    expect(lines.some((l) => /End-game bonuses: .*=/.test(l.text))).toBe(true);
    // Every Glory change says why, with the card and the place when the event names them.
    const glory = events().filter((e) => e.payload.case === "bloodRage" && e.payload.value.kind.case === "gloryChanged");
    expect(glory.length).toBeGreaterThan(3);
    for (const e of glory) {
      const v = e.payload.case === "bloodRage" && e.payload.value.kind.case === "gloryChanged" ? e.payload.value.kind.value : undefined;
      const text = describeEvent(e, cat, names).text;
      expect(text).toMatch(/\((battle won|pillage|quest|Ragnarök|card|end-game bonus)/);
      if (v?.cardId) expect(text).toContain(cat.cardName(v.cardId));
      if (v?.area) expect(text).toContain(`in ${areaName(v.area)}`);
    }
  });
});

describe("routes", () => {
  it("maps hashes to pages", () => {
    expect(parseRoute("")).toEqual({ page: "lobby" });
    expect(parseRoute("#/game/abc123")).toEqual({ page: "game", gameId: "abc123", spectate: false });
    expect(parseRoute("#/watch/abc123")).toEqual({ page: "game", gameId: "abc123", spectate: true });
    expect(parseRoute("#/replay/abc123")).toEqual({ page: "replay", gameId: "abc123" });
  });
});
