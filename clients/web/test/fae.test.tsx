// Fire & Axe's page from recorded views (scripts/record_web_fae_fixtures.py): the board drawn
// from the demo pack's map with ships, goods, towns and Settlements, the tracks (Days, Wind
// Dial, Goods in Demand), the seats, the Sagas, the Runes, the decision (places on the board,
// number keys), a spectator's view, the result, the events, and the lobby's options.
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { render } from "preact";
import { act } from "preact/test-utils";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { FaeCreateOptions, DEFAULT_CHOICES, faeOptions } from "../src/fae/FaeCreate.js";
import { FaeGameScreen, actionsByPlace, actionsByRune } from "../src/fae/FaeGame.js";
import { FaePack } from "../src/fae/catalog.js";
import { describeFaeEvent } from "../src/fae/events.js";
import { HEIGHT, WIDTH, layout } from "../src/fae/layout.js";
import type { FireAndAxeCatalog, FireAndAxeView } from "../src/gen/yggdrasil/v1/fire_and_axe_pb.js";
import { FireAndAxeRuneTiming, FireAndAxeSettleBlock } from "../src/gen/yggdrasil/v1/fire_and_axe_pb.js";
import type { Event, View } from "../src/gen/yggdrasil/v1/game_pb.js";
import { EventSchema, ViewSchema } from "../src/gen/yggdrasil/v1/game_pb.js";
import { GetCatalogResponseSchema } from "../src/gen/yggdrasil/v1/game_service_pb.js";
import type { GameClient } from "../src/api.js";
import { state, useRoot } from "./fixtures.js";

function json(name: string): JsonValue {
  return JSON.parse(readFileSync(resolve(__dirname, "fixtures", `${name}.json`), "utf8")) as JsonValue;
}
const view = (name: string): View => fromJson(ViewSchema, json(name));
const fae = (v: View): FireAndAxeView => {
  if (v.game.case !== "fireAndAxe") throw new Error("not a Fire & Axe view");
  return v.game.value;
};
const reply = fromJson(GetCatalogResponseSchema, json("fae-catalog"));
if (reply.game.case !== "fireAndAxe") throw new Error("no Fire & Axe catalog");
const catalog: FireAndAxeCatalog = reply.game.value;
const demo = catalog.packs[0];
const events: Event[] = (json("fae-events") as JsonValue[]).map((e) => fromJson(EventSchema, e));

const mounted = useRoot();
let root: HTMLElement;
beforeEach(() => {
  root = mounted();
});
const show = (v: View, onChoose = vi.fn()) => {
  act(() => render(<FaeGameScreen state={state(v, { log: events.slice(0, 40) })} catalog={catalog} onChoose={onChoose} />, root));
  return onChoose;
};
const press = (key: string) => act(() => void document.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true })));

describe("the schematic layout of a pack's map", () => {
  it("is the same every time, inside the drawing, with places apart", () => {
    const a = layout(demo);
    const b = layout({ ...demo, info: undefined } as typeof demo); // computed again, not cached
    expect(a).toEqual(b);
    expect(a.length).toBe(demo.locations.length);
    for (const p of a) {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.x).toBeLessThanOrEqual(WIDTH);
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeLessThanOrEqual(HEIGHT);
    }
    let closest = Infinity;
    for (let i = 0; i < a.length; i++)
      for (let j = i + 1; j < a.length; j++) closest = Math.min(closest, Math.hypot(a[i].x - a[j].x, a[i].y - a[j].y));
    expect(closest).toBeGreaterThan(14);
  });

  it("puts each Weather Zone on its side of the board", () => {
    const points = layout(demo);
    const mean = (zone: number) => {
      const at = demo.locations.filter((l) => l.zone === zone && l.kind !== 3).map((l) => points[l.index]);
      return { x: at.reduce((s, p) => s + p.x, 0) / at.length, y: at.reduce((s, p) => s + p.y, 0) / at.length };
    };
    const [north, east, south, west] = [1, 2, 3, 4].map(mean);
    expect(north.y).toBeLessThan(south.y);
    expect(west.x).toBeLessThan(east.x);
  });
});

describe("a seat at sea", () => {
  const v = view("fae-sea-seat0");
  const f = fae(v);
  const pack = new FaePack(demo);

  it("draws every place of the pack, the ships, goods tokens, towns and Settlements", () => {
    show(v);
    expect(root.querySelectorAll(".fae-board .place").length).toBe(demo.locations.length);
    expect(root.querySelectorAll(".fae-board .ship").length).toBe(f.seats.length);
    expect(root.querySelectorAll(".fae-board .goods-token").length).toBe(f.ports.filter((p) => p.goods).length);
    expect(root.querySelectorAll(".fae-board .town").length).toBe(f.ports.filter((p) => p.town).length);
    expect(root.querySelectorAll(".fae-board .settlement").length).toBe(f.ports.filter((p) => p.settler !== undefined).length);
    const board = root.querySelector(".fae-board")!.textContent!;
    for (const name of ["Constantinople", "Kiev", "Reykjanes", "Denmark", "Wintering Zone"]) expect(board).toContain(name);
    expect(root.querySelectorAll(".fae-board .zone-label").length).toBe(4);
  });

  it("says plainly that the demo pack is not the published game", () => {
    show(v);
    expect(root.querySelector(".demo-banner")!.textContent).toContain("NOT the published Fire & Axe");
  });

  it("shows the Days track, the Wind Dial, the Goods in Demand, the seats and the Sagas", () => {
    show(v);
    const days = root.querySelectorAll(".days .day");
    expect(days.length).toBe(7);
    expect(root.querySelectorAll(".days .day.sail").length).toBe(f.days!.sailing);
    expect(root.querySelectorAll(".days .day.prep").length).toBe(f.days!.preparation);
    const dial = [...root.querySelectorAll(".dial-days")].map((t) => t.textContent);
    expect(dial).toEqual(f.dial!.fairWeatherDays.map(String));
    expect(root.querySelector(".dial-zone.best")).not.toBeNull();
    expect(root.querySelector(".fae-tracks .demand")!.textContent).toContain("(+2 VP)");
    expect(root.querySelectorAll(".fae-seats tbody tr").length).toBe(2);
    const sagas = root.querySelectorAll(".saga-card:not(.empty)");
    expect(sagas.length).toBe(f.sagas!.spaces.filter((s) => s.saga !== undefined).length);
    expect(root.querySelector(".fae-seats")!.textContent).toContain("Red (Astrid)");
  });

  it("offers the places to sail to on the board; one click chooses the Sail", () => {
    const byPlace = actionsByPlace(v);
    expect(byPlace.size).toBeGreaterThan(0);
    const chosen = show(v);
    expect(root.querySelectorAll(".fae-board .target").length).toBe(byPlace.size);
    const [place, indexes] = [...byPlace.entries()].find(([, ix]) => ix.length === 1)!;
    (root.querySelector(`.fae-board .target[data-place="${place}"]`) as SVGGElement).dispatchEvent(
      new MouseEvent("click", { bubbles: true }),
    );
    expect(chosen).toHaveBeenCalledWith(indexes[0]);
    expect(pack.place(place)).not.toMatch(/^place #/);
  });

  it("chooses with number keys (1 = the first action) and lists every action", () => {
    const chosen = show(v);
    expect(root.querySelectorAll(".decision button.action").length).toBe(v.legalActions.length);
    press("1");
    if (v.legalActions.length >= 10) press("Enter");
    expect(chosen).toHaveBeenCalledWith(0);
  });

  it("shows the viewer's Runes; a click narrows the list to that Rune's actions", () => {
    const withRune = view("fae-sea-seat0");
    const g = fae(withRune);
    const rune = demo.runes.findIndex((r) => r.id === "change-of-demand");
    g.own!.hand = [rune];
    // Its play with each free dial turn, as the server would offer it.
    withRune.legalActions.push(
      ...[0, 1, 2].map((dial, k) => ({
        ...withRune.legalActions[0],
        index: withRune.legalActions.length + k,
        label: `play Change of Demand (${dial})`,
        action: { $typeName: "yggdrasil.v1.Action", game: { case: "fireAndAxe", value: { $typeName: "yggdrasil.v1.FireAndAxeAction", kind: { case: "playRune", value: { $typeName: "yggdrasil.v1.FireAndAxeAction.PlayRune", rune, dial, choice: 0 } } } } },
      })) as typeof withRune.legalActions,
    );
    expect(actionsByRune(withRune).get(rune)?.length).toBe(3);
    show(withRune);
    const card = root.querySelector(`.fae-hand .card[data-rune="${rune}"]`) as HTMLButtonElement;
    expect(card.textContent).toContain("Change of Demand");
    act(() => card.click());
    expect(root.querySelector(".decision .filter")!.textContent).toContain("Change of Demand");
    expect(root.querySelectorAll(".decision button.action").length).toBe(3);
  });
});

describe("a spectator", () => {
  it("holds no Runes and sees no actions to take", () => {
    const v = view("fae-sea-spectator");
    show(v);
    expect(root.querySelector(".fae-hand")).toBeNull();
    expect(root.querySelectorAll("button.action").length).toBe(0);
    expect(root.textContent).toContain("Spectating");
    expect(root.querySelectorAll(".fae-board .target").length).toBe(0);
  });
});

describe("the end", () => {
  it("shows the ranking with VP, towns, Settlements and Sagas", () => {
    const v = view("fae-finished-seat0");
    show(v);
    const rows = root.querySelectorAll(".result tbody tr");
    expect(rows.length).toBe(2);
    for (const seat of v.result!.seats) {
      expect(root.querySelector(`.result tr[data-seat="${seat.seat}"] td:nth-child(3)`)!.textContent).toBe(String(seat.score));
    }
    expect(root.querySelector(".result")!.textContent).toMatch(/Final Rounds|Saga spaces|Settlements/);
  });
});

describe("events", () => {
  it("every event of a recorded game reads as its own line, with the pack's names", () => {
    const pack = new FaePack(demo);
    const lines = events.map((e) => describeFaeEvent(e, pack, ["Astrid", "Bjorn"]));
    for (const line of lines) expect(line.text).not.toContain("does not know");
    const text = lines.map((l) => l.text).join("\n");
    expect(text).toMatch(/Red \(Astrid\) sails .+ → .+ \(Day \d\)/);
    expect(text).toMatch(/trades \w+ .*at /);
    expect(text).toMatch(/Game over: /);
    // The spectator's copies of drawn cards name no card.
    expect(text).not.toMatch(/draws a Rune: /);
  });
});

describe("the lobby's Fire & Axe options", () => {
  it("offers the server's packs, says the demo pack is invented, and builds the options", async () => {
    const client = { getCatalog: vi.fn(async () => reply) } as unknown as GameClient;
    const changed = vi.fn();
    await act(async () => {
      render(<FaeCreateOptions client={client} value={DEFAULT_CHOICES} onChange={changed} />, root);
    });
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    const options = [...root.querySelectorAll('select[name="pack"] option')].map((o) => o.textContent);
    expect(options.length).toBe(1 + catalog.packs.length);
    expect(options.some((o) => o?.includes("(demo: invented)"))).toBe(true);
    expect(root.textContent).toContain("not the published game");
    const built = faeOptions({ pack: "abc", anyTime: true, settleAny: true, noConflict: true });
    expect(built).toMatchObject({
      dataPack: "abc",
      runeTiming: FireAndAxeRuneTiming.ANY_TIME,
      settleRegionBlock: FireAndAxeSettleBlock.ANY,
      noConflict: true,
    });
  });
});
