// A schematic layout of a data pack's map: the rulebook has no picture of the board, so the
// page draws the pack's graph. Every Weather Zone pulls its places towards its side (North up,
// South down, West left, East right), the Homelands towards the middle; edges are springs,
// places repel each other. Deterministic (no randomness: the start follows the index), so a
// pack is always drawn the same way; computed once per pack.
import type { FireAndAxePack } from "../gen/yggdrasil/v1/fire_and_axe_pb.js";
import { FireAndAxeLocationKind, FireAndAxeZone } from "../gen/yggdrasil/v1/fire_and_axe_pb.js";

export interface Point {
  x: number;
  y: number;
}

export const WIDTH = 1000;
/** The map's height; the drawing adds a strip below it for the Wintering Zone. */
export const HEIGHT = 660;
const MARGIN_X = 58;
const MARGIN_Y = 44;

const ANCHORS: Record<number, Point> = {
  [FireAndAxeZone.NORTH]: { x: 0.52, y: 0.1 },
  [FireAndAxeZone.EAST]: { x: 0.88, y: 0.5 },
  [FireAndAxeZone.SOUTH]: { x: 0.5, y: 0.9 },
  [FireAndAxeZone.WEST]: { x: 0.12, y: 0.48 },
};
const MIDDLE: Point = { x: 0.5, y: 0.42 };

const cache = new Map<string, Point[]>();

export function layout(pack: FireAndAxePack): Point[] {
  const key = pack.info?.digest ?? "";
  const known = cache.get(key);
  if (known && key) return known;
  const points = compute(pack);
  if (key) cache.set(key, points);
  return points;
}

function compute(pack: FireAndAxePack): Point[] {
  const n = pack.locations.length;
  const anchor = pack.locations.map((loc) =>
    loc.kind === FireAndAxeLocationKind.HOMELAND
      ? blend(ANCHORS[loc.zone] ?? MIDDLE, MIDDLE, 0.65)
      : (ANCHORS[loc.zone] ?? MIDDLE),
  );
  const golden = Math.PI * (3 - Math.sqrt(5));
  const pos = anchor.map((a, i) => ({
    x: a.x + 0.1 * Math.sqrt((i % 17) / 17 + 0.05) * Math.cos(i * golden),
    y: a.y + 0.1 * Math.sqrt((i % 17) / 17 + 0.05) * Math.sin(i * golden),
  }));
  const edges: [number, number][] = [];
  pack.locations.forEach((loc, i) => {
    for (const j of loc.adjacent) if (i < j && j < n) edges.push([i, j]);
  });
  const rest = 0.085;
  for (let step = 0; step < 420; step++) {
    const heat = 0.06 * (1 - step / 420) + 0.004;
    const force = pos.map(() => ({ x: 0, y: 0 }));
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const dx = pos[i].x - pos[j].x;
        const dy = pos[i].y - pos[j].y;
        const d2 = Math.max(dx * dx + dy * dy, 1e-4);
        if (d2 > 0.09) continue;
        const push = 0.00055 / d2;
        const d = Math.sqrt(d2);
        force[i].x += (push * dx) / d;
        force[i].y += (push * dy) / d;
        force[j].x -= (push * dx) / d;
        force[j].y -= (push * dy) / d;
      }
    }
    for (const [i, j] of edges) {
      const dx = pos[j].x - pos[i].x;
      const dy = pos[j].y - pos[i].y;
      const d = Math.max(Math.sqrt(dx * dx + dy * dy), 1e-3);
      const pull = 0.35 * (d - rest);
      force[i].x += (pull * dx) / d;
      force[i].y += (pull * dy) / d;
      force[j].x -= (pull * dx) / d;
      force[j].y -= (pull * dy) / d;
    }
    for (let i = 0; i < n; i++) {
      force[i].x += 0.06 * (anchor[i].x - pos[i].x);
      force[i].y += 0.06 * (anchor[i].y - pos[i].y);
      const length = Math.sqrt(force[i].x ** 2 + force[i].y ** 2);
      const scale = length > heat ? heat / length : 1;
      pos[i].x += force[i].x * scale;
      pos[i].y += force[i].y * scale;
    }
  }
  return fit(pos);
}

function blend(a: Point, b: Point, t: number): Point {
  return { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t };
}

/** Stretch the points over the drawing, margins kept. */
function fit(pos: Point[]): Point[] {
  if (!pos.length) return [];
  const xs = pos.map((p) => p.x);
  const ys = pos.map((p) => p.y);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const sx = (WIDTH - 2 * MARGIN_X) / Math.max(x1 - x0, 1e-6);
  const sy = (HEIGHT - 2 * MARGIN_Y) / Math.max(y1 - y0, 1e-6);
  return pos.map((p) => ({ x: MARGIN_X + (p.x - x0) * sx, y: MARGIN_Y + (p.y - y0) * sy }));
}
