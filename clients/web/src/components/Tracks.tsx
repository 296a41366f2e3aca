// The tracks around the board, as the box has them: Glory (every clan's marker on one
// scale), the Ages and Ragnarök (the province each Age's end destroys, the current Age and
// phase) and Valhalla (the figures each clan has there, back to the reserve at the Age's end).
import type { BloodRageView } from "../gen/yggdrasil/v1/blood_rage_pb.js";
import { FigureLocation, Phase, Unit } from "../gen/yggdrasil/v1/blood_rage_pb.js";
import { areaName, clanOf, phaseName, unitName } from "../names.js";
import { FigureGlyph } from "./Board.js";
import { ClanMark } from "./Panels.js";

/** Glory from 0 to the track's end (it grows past 100 if a clan does). */
export function GloryTrack(props: { view: BloodRageView }) {
  const clans = props.view.clans;
  const top = Math.max(100, ...clans.map((c) => c.glory));
  const end = Math.ceil(top / 20) * 20;
  const width = 1000;
  const x = (glory: number) => 20 + (Math.max(0, glory) / end) * (width - 40);
  // Clans on the same Glory stand one above the other.
  const rows = new Map<number, number>();
  const marks = [...clans]
    .sort((a, b) => a.glory - b.glory || a.seat - b.seat)
    .map((clan) => {
      const row = rows.get(clan.glory) ?? 0;
      rows.set(clan.glory, row + 1);
      return { clan, row };
    });
  const ticks: number[] = [];
  for (let g = 0; g <= end; g += 10) ticks.push(g);
  return (
    <section class="panel track-panel glory-track" aria-label="Glory track">
      <h2>Glory</h2>
      <svg viewBox={`0 0 ${width} 78`} role="img" aria-label="Glory of each clan">
        <line x1={x(0)} x2={x(end)} y1="58" y2="58" class="track-line" />
        {ticks.map((g) => (
          <g class={g % 50 === 0 ? "tick major" : "tick"}>
            <line x1={x(g)} x2={x(g)} y1="52" y2="64" />
            {g % 20 === 0 ? (
              <text x={x(g)} y="76" text-anchor="middle">
                {g}
              </text>
            ) : null}
          </g>
        ))}
        {marks.map(({ clan, row }) => (
          <g class="glory-marker" data-seat={clan.seat} style={{ transform: `translate(${x(clan.glory)}px, ${44 - row * 17}px)` }}>
            <title>{`${clanOf(clan.seat).name}: ${clan.glory} Glory`}</title>
            <circle r="9" fill={clanOf(clan.seat).colour} stroke="#222" stroke-width="1.5" />
            <text y="4" text-anchor="middle" class="figure-mark small">
              {clanOf(clan.seat).mark}
            </text>
          </g>
        ))}
      </svg>
      <p class="track-legend">
        {[...clans]
          .sort((a, b) => b.glory - a.glory || a.seat - b.seat)
          .map((c) => (
            <span data-seat={c.seat}>
              <ClanMark seat={c.seat} /> {c.glory}
            </span>
          ))}
      </p>
    </section>
  );
}

const PHASES: readonly Phase[] = [Phase.DRAFT, Phase.ACTION, Phase.DISCARD, Phase.QUEST, Phase.RAGNAROK, Phase.RELEASE_VALHALLA];

/** The three Ages, each with the province its Ragnarök destroys, and the phases of this one. */
export function AgeTrack(props: { view: BloodRageView }) {
  const { view } = props;
  const over = view.phase === Phase.GAME_OVER;
  const destroyed = new Set(view.provinces.filter((p) => p.destroyed).map((p) => p.area));
  return (
    <section class="panel track-panel age-track" aria-label="Ages and Ragnarök">
      <h2>Ages and Ragnarök</h2>
      <ol class="ages">
        {[1, 2, 3].map((age) => {
          const province = view.ragnarokSlots[age - 1];
          const now = !over && view.age === age;
          const past = over || view.age > age;
          return (
            <li class={`age${now ? " now" : ""}${past ? " past" : ""}`} data-age={age}>
              <span class="age-name">Age {age}</span>
              <span class="ragnarok-slot">
                ☠ {province ? areaName(province) : "?"}
                {province && destroyed.has(province) ? <span class="gone"> destroyed</span> : now ? <span class="doom"> doom</span> : null}
              </span>
            </li>
          );
        })}
      </ol>
      {!over ? (
        <ol class="phases" aria-label={`Age ${view.age} phases`}>
          {PHASES.map((phase) => (
            <li class={phase === view.phase ? "now" : ""}>{phaseName(phase).replace(" (draft)", "")}</li>
          ))}
        </ol>
      ) : (
        <p class="muted">The game is over.</p>
      )}
    </section>
  );
}

/** Every clan's figures in Valhalla (they come back at the end of the Age). */
export function Valhalla(props: { view: BloodRageView }) {
  const clans = props.view.clans.map((clan) => ({
    seat: clan.seat,
    dead: clan.figures.filter((f) => f.location === FigureLocation.VALHALLA).map((f) => f.unit),
  }));
  const total = clans.reduce((n, c) => n + c.dead.length, 0);
  return (
    <section class="panel track-panel valhalla" aria-label="Valhalla">
      <h2>
        Valhalla <small class="muted">{total ? `${total} figure${total === 1 ? "" : "s"}, back at the Age's end` : "empty"}</small>
      </h2>
      {total ? (
        <ul class="valhalla-clans">
          {clans
            .filter((c) => c.dead.length)
            .map((c) => (
              <li data-seat={c.seat}>
                <ClanMark seat={c.seat} />
                <svg viewBox={`0 0 ${c.dead.length * 42 + 4} 44`} class="valhalla-figures" role="img" aria-label={`${clanOf(c.seat).name}: ${c.dead.map(unitName).join(", ")}`}>
                  {c.dead
                    .slice()
                    .sort((a: Unit, b: Unit) => a - b)
                    .map((unit, k) => (
                      <FigureGlyph x={23 + k * 42} y={22} seat={c.seat} unit={unit} />
                    ))}
                </svg>
              </li>
            ))}
        </ul>
      ) : null}
    </section>
  );
}
