// The Fire & Axe board, drawn from the game's data pack: the rulebook has no picture of the map,
// so this is a schematic of the pack's graph (layout.ts), not the published board. Every place
// with its Weather Zone, each zone's Fair Weather Days (▲ best, ▼ worst), ports with their
// value, town, goods token and Settlement, the ships, the Wintering Zone with the Goods in
// Demand; the places the viewer may sail or leave to are targets.
import type { FireAndAxeView } from "../gen/yggdrasil/v1/fire_and_axe_pb.js";
import { FireAndAxeLocationKind, FireAndAxeTownSize } from "../gen/yggdrasil/v1/fire_and_axe_pb.js";
import type { FaePack } from "./catalog.js";
import { HEIGHT, WIDTH, layout, type Point } from "./layout.js";
import { GOOD_COLOURS, GOODS, HOMELAND_COLOURS, ZONES, seatOf } from "./names.js";

export interface FaeBoardProps {
  view: FireAndAxeView;
  pack: FaePack;
  /** Place index -> the legal action indexes that go there (Sail, leaving the Wintering Zone). */
  targets: Map<number, number[]>;
  selected?: number;
  onPlace: (place: number) => void;
}

const STRIP = 74; // the Wintering Zone, below the map
const ZONE_LABELS: Record<number, Point> = {
  1: { x: WIDTH / 2, y: 18 },
  2: { x: WIDTH - 14, y: HEIGHT / 2 },
  3: { x: WIDTH / 2, y: HEIGHT - 8 },
  4: { x: 14, y: HEIGHT / 2 },
};

function shipPath(x: number, y: number): string {
  return `M${x - 14},${y - 3} L${x + 14},${y - 3} L${x + 9},${y + 7} L${x - 9},${y + 7} Z M${x - 1},${y - 3} L${x - 1},${y - 17} L${x + 10},${y - 7} L${x - 1},${y - 7} Z`;
}

function Ship(props: { seat: number; x: number; y: number }) {
  const look = seatOf(props.seat);
  return (
    <g class="ship" data-seat={props.seat}>
      <title>{`${look.name}'s ship`}</title>
      <path d={shipPath(props.x, props.y)} fill={look.colour} stroke="#fff" stroke-width="4" stroke-linejoin="round" />
      <path d={shipPath(props.x, props.y)} fill={look.colour} stroke="#111" stroke-width="1.4" stroke-linejoin="round" />
      <text x={props.x} y={props.y + 5} class="ship-mark">
        {look.mark}
      </text>
    </g>
  );
}

export function FaeBoard(props: FaeBoardProps) {
  const { view, pack, targets, selected, onPlace } = props;
  const data = pack.pack;
  if (!data) return <p class="muted">The board of this game's data pack is not in the catalog.</p>;
  const points = layout(data);
  const ports = new Map(view.ports.map((p) => [p.port, p]));
  const shipsAt = new Map<number, number[]>();
  const wintering: number[] = [];
  for (const s of view.seats) {
    if (s.location === undefined) wintering.push(s.seat);
    else shipsAt.set(s.location, [...(shipsAt.get(s.location) ?? []), s.seat]);
  }
  const sagaPorts = new Set<number>();
  for (const space of view.sagas?.spaces ?? []) {
    if (space.saga !== undefined) for (const p of pack.saga(space.saga)?.ports ?? []) sagaPorts.add(p);
  }
  const fwd = view.dial?.fairWeatherDays ?? [];
  const edges: [number, number][] = [];
  data.locations.forEach((loc, i) => loc.adjacent.forEach((j) => i < j && edges.push([i, j])));
  return (
    <svg class="fae-board" viewBox={`0 0 ${WIDTH} ${HEIGHT + STRIP}`} role="img" aria-label="The board (a schematic of the data pack's map)">
      <rect x="0" y="0" width={WIDTH} height={HEIGHT} class="sea" />
      {[1, 2, 3, 4].map((zone) => {
        const at = ZONE_LABELS[zone];
        const mark = view.dial?.blue === zone ? " ▲ best" : view.dial?.red === zone ? " ▼ worst" : "";
        const turn = zone === 2 ? 90 : zone === 4 ? -90 : 0;
        return (
          <text
            x={at.x}
            y={at.y}
            transform={turn ? `rotate(${turn} ${at.x} ${at.y})` : undefined}
            class={`zone-label zone-${zone}${mark ? (mark.includes("best") ? " best" : " worst") : ""}`}
            text-anchor="middle"
          >
            {`${ZONES[zone]} · ${fwd[zone - 1] ?? "?"} Fair Weather Days${mark}`}
          </text>
        );
      })}
      <g class="edges">
        {edges.map(([i, j]) => (
          <line x1={points[i].x} y1={points[i].y} x2={points[j].x} y2={points[j].y} />
        ))}
      </g>
      {data.locations.map((loc, i) => {
        const p = points[i];
        const port = ports.get(i);
        const target = targets.has(i);
        const cls = `place kind-${FireAndAxeLocationKind[loc.kind].toLowerCase()}${target ? " target" : ""}${selected === i ? " selected" : ""}`;
        const onClick = target ? () => onPlace(i) : undefined;
        const key = target
          ? (e: KeyboardEvent) => {
              if (e.key === "Enter" || e.key === " ") {
                e.preventDefault();
                onPlace(i);
              }
            }
          : undefined;
        const title = `${loc.name} (${ZONES[loc.zone] ?? "?"}${loc.kind === FireAndAxeLocationKind.PORT ? `, value ${loc.value}${loc.region ? `, region ${loc.region}` : ", independent"}` : ""})`;
        return (
          <g class={cls} data-place={i} data-name={loc.name} onClick={onClick} onKeyDown={key} tabIndex={target ? 0 : undefined} role={target ? "button" : undefined}>
            <title>{title}</title>
            {loc.kind === FireAndAxeLocationKind.WATER ? (
              <>
                <circle cx={p.x} cy={p.y} r={9} class="shape" />
                <text x={p.x} y={p.y + 21} class="water-name">
                  {loc.name}
                </text>
              </>
            ) : loc.kind === FireAndAxeLocationKind.HOMELAND ? (
              <>
                <rect x={p.x - 34} y={p.y - 14} width={68} height={28} rx={6} class="shape" style={{ fill: HOMELAND_COLOURS[homelandOf(loc.id)] ?? "#ddd" }} />
                <text x={p.x} y={p.y + 5} class="homeland-name">
                  {loc.name}
                </text>
              </>
            ) : (
              <>
                {sagaPorts.has(i) ? <circle cx={p.x} cy={p.y} r={21} class="saga-ring" /> : null}
                <circle cx={p.x} cy={p.y} r={14} class="shape" />
                <text x={p.x} y={p.y + 5} class="port-value">
                  {loc.value}
                </text>
                <text x={p.x} y={p.y + 28} class="port-name">
                  {loc.name}
                </text>
                {port && port.town !== FireAndAxeTownSize.UNSPECIFIED ? (
                  <g class={`town ${port.town === FireAndAxeTownSize.LARGE ? "large" : "small"}`}>
                    <title>{port.town === FireAndAxeTownSize.LARGE ? "a large town (treasure hidden)" : "a small town (treasure hidden)"}</title>
                    <path d={townPath(p.x + 12, p.y - 12, port.town === FireAndAxeTownSize.LARGE ? 1.35 : 1)} />
                  </g>
                ) : null}
                {port && port.goods ? (
                  <g class="goods-token">
                    <title>{`a ${GOODS[port.goods]} token traded here`}</title>
                    <rect x={p.x - 25} y={p.y - 20} width={12} height={12} rx={2} style={{ fill: GOOD_COLOURS[port.goods] }} />
                    <text x={p.x - 19} y={p.y - 10.5} class="goods-letter">
                      {(GOODS[port.goods] ?? "?")[0].toUpperCase()}
                    </text>
                  </g>
                ) : null}
                {port && port.settler !== undefined ? (
                  <g class="settlement" data-seat={port.settler}>
                    <title>{`${seatOf(port.settler).name}'s Settlement`}</title>
                    <path d={housePath(p.x + 16, p.y + 8)} style={{ fill: seatOf(port.settler).colour }} />
                    <text x={p.x + 16} y={p.y + 16} class="ship-mark">
                      {seatOf(port.settler).mark}
                    </text>
                  </g>
                ) : null}
              </>
            )}
          </g>
        );
      })}
      <g class="ships">
        {[...shipsAt.entries()].flatMap(([i, seats]) =>
          seats.map((seat, k) => <Ship seat={seat} x={points[i].x - 14 * (seats.length - 1) + 28 * k} y={points[i].y - 24} />),
        )}
      </g>
      <g class="wintering" data-place="wintering">
        <rect x={8} y={HEIGHT + 8} width={WIDTH - 16} height={STRIP - 14} rx={8} />
        <text x={22} y={HEIGHT + 30} class="wintering-name">
          Wintering Zone
        </text>
        <text x={22} y={HEIGHT + 50} class="demand">
          Goods in Demand:
        </text>
        <rect x={142} y={HEIGHT + 39} width={14} height={14} rx={2} style={{ fill: GOOD_COLOURS[view.demand] ?? "#eee" }} stroke="#333" />
        <text x={162} y={HEIGHT + 50} class="demand">
          {GOODS[view.demand] ?? "?"}
        </text>
        {wintering.map((seat, k) => (
          <Ship seat={seat} x={250 + 40 * k} y={HEIGHT + 40} />
        ))}
      </g>
    </svg>
  );
}

function homelandOf(id: string): number {
  return id === "denmark" ? 1 : id === "norway" ? 2 : id === "sweden" ? 3 : 0;
}

function townPath(x: number, y: number, s: number): string {
  return `M${x - 6 * s},${y + 6 * s} L${x - 6 * s},${y - 1 * s} L${x},${y - 7 * s} L${x + 6 * s},${y - 1 * s} L${x + 6 * s},${y + 6 * s} Z`;
}

function housePath(x: number, y: number): string {
  return `M${x - 7},${y + 10} L${x - 7},${y + 2} L${x},${y - 4} L${x + 7},${y + 2} L${x + 7},${y + 10} Z`;
}
