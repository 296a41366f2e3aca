// The clan panels, the battle panel and the event log.
import { useState } from "preact/hooks";
import type { BattleView, BloodRageView, ClanView, UpgradeView } from "../gen/yggdrasil/v1/blood_rage_pb.js";
import { FigureLocation, Stat, Step } from "../gen/yggdrasil/v1/blood_rage_pb.js";
import type { Event } from "../gen/yggdrasil/v1/game_pb.js";
import type { Catalog } from "../catalog.js";
import { describeEvent } from "../events.js";
import { areaName, clanOf, rewardName, slotName, statName, unitName } from "../names.js";
import type { BattleOutcome } from "../session.js";

export function ClanMark(props: { seat: number }) {
  const clan = clanOf(props.seat);
  return (
    <span class={`clan-mark ${clan.pattern}`} style={{ background: clan.colour }} aria-hidden="true">
      {clan.mark}
    </span>
  );
}

function Track(props: { clan: ClanView; stat: Stat }) {
  const level = props.clan.stats.find((s) => s.stat === props.stat);
  const step = level?.step ?? 0;
  return (
    <div class="track" title={`${statName(props.stat)}: step ${step} of 6`}>
      <span class="track-name">{statName(props.stat)}</span>
      <span class="track-steps" aria-label={`step ${step} of 6`}>
        {[1, 2, 3, 4, 5, 6].map((s) => (
          <span class={s === step ? "step on" : s < step ? "step past" : "step"} />
        ))}
      </span>
      <span class="track-value">{level?.value ?? "?"}</span>
    </div>
  );
}

export function ClanPanel(props: {
  clan: ClanView;
  viewer?: number;
  awaited: boolean;
  committed: boolean;
  firstPlayer: boolean;
}) {
  const { clan, viewer, awaited, committed, firstPlayer } = props;
  const look = clanOf(clan.seat);
  const count = (location: FigureLocation) => clan.figures.filter((f) => f.location === location).length;
  const you = viewer === clan.seat;
  return (
    <section
      class={`clan${awaited ? " awaited" : ""}${you ? " you" : ""}`}
      style={{ borderColor: look.colour }}
      data-seat={clan.seat}
      aria-label={`${look.name} clan`}
    >
      <header>
        <ClanMark seat={clan.seat} />
        <strong>{look.name}</strong> <span class="player-name">{clan.name}</span>
        {you ? <span class="badge">you</span> : null}
        {firstPlayer ? <span class="badge" title="first player this Age">1st</span> : null}
        {awaited ? <span class="badge wait">{committed ? "chosen" : "to play"}</span> : null}
      </header>
      <div class="clan-numbers">
        <span title="Glory">
          <b>{clan.glory}</b> Glory
        </span>
        <span title="Rage left to spend this Action phase">
          <b>{clan.rage}</b> Rage left
        </span>
      </div>
      <Track clan={clan} stat={Stat.RAGE} />
      <Track clan={clan} stat={Stat.AXES} />
      <Track clan={clan} stat={Stat.HORNS} />
      <div class="clan-counts">
        <span title="cards in hand">
          {clan.handCount} card{clan.handCount === 1 ? "" : "s"}
          {clan.hasKeptCard ? " (1 kept)" : ""}
        </span>
        <span title="quests committed this Age">{clan.questCount} quest{clan.questCount === 1 ? "" : "s"}</span>
        <span title="figures on the board">{count(FigureLocation.BOARD)} on board</span>
        <span title="figures in reserve">{count(FigureLocation.RESERVE)} in reserve</span>
        <span title="figures in Valhalla">{count(FigureLocation.VALHALLA)} in Valhalla</span>
      </div>
      {clan.upgrades.length ? (
        <ul class="upgrades">
          {clan.upgrades.map((u) => (
            <UpgradeChip upgrade={u} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** An upgrade on a clan sheet: its name, and its whole card on hover, focus or a tap. */
function UpgradeChip(props: { upgrade: UpgradeView }) {
  const { upgrade } = props;
  const [open, setOpen] = useState(false);
  const info = upgrade.info;
  const name = info?.name ?? upgrade.card?.cardId ?? "?";
  return (
    <li class={`upgrade${open ? " open" : ""}`}>
      <button
        class="upgrade-name link"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        onBlur={() => setOpen(false)}
      >
        <span class="slot">{slotName(upgrade.slot)}:</span> {name}
      </button>
      {info ? (
        <div class="card-pop card card-upgrade" role="tooltip">
          <span class="card-name">{info.name}</span>
          <span class="card-stats">
            {slotName(info.slot)} upgrade · cost {info.cost}
            {info.monster ? ` · STR ${info.strength}` : ""} · Age {info.age}
          </span>
          <span class="card-text">{info.text}</span>
        </div>
      ) : null}
    </li>
  );
}

export function ClanPanels(props: { view: BloodRageView; viewer?: number; awaiting: number[]; committed: number[] }) {
  return (
    <div class="clans">
      {props.view.clans.map((clan) => (
        <ClanPanel
          clan={clan}
          viewer={props.viewer}
          awaited={props.awaiting.includes(clan.seat)}
          committed={props.committed.includes(clan.seat)}
          firstPlayer={props.view.firstPlayer === clan.seat}
        />
      ))}
    </div>
  );
}

function LiveBattle(props: { battle: BattleView; step: Step; catalog: Catalog }) {
  const { battle, step, catalog } = props;
  // Totals come once the battle is compared (after any late card): "?" until then.
  const totalsKnown = battle.revealed && battle.participants.some((p) => p.totalStrength > 0);
  const stage = battle.revealed
    ? "cards revealed"
    : step === Step.CALL_TO_BATTLE
      ? "Call to Battle: figures may move in"
      : "choosing battle cards";
  return (
    <div class="battle-live" data-revealed={String(battle.revealed)}>
      <p>
        <b>{clanOf(battle.pillager).name}</b> pillages <b>{areaName(battle.province)}</b> — {stage}
        {battle.revealRound > 1 ? ` (round ${battle.revealRound})` : ""}
      </p>
      {battle.participants.length ? <table>
        <thead>
          <tr>
            <th>Clan</th>
            <th>Figures STR</th>
            <th>Cards</th>
            <th>Total</th>
          </tr>
        </thead>
        <tbody>
          {battle.participants.map((p) => (
            <tr data-seat={p.seat}>
              <td>
                <ClanMark seat={p.seat} /> {clanOf(p.seat).name}
              </td>
              <td>{p.figureStrength}</td>
              <td>
                {p.revealedCards.length
                  ? p.revealedCards.map((c) => catalog.cardName(c.cardId)).join(", ")
                  : p.hasCommitted
                    ? "chosen (hidden)"
                    : "choosing…"}
              </td>
              <td>{totalsKnown ? p.totalStrength : "?"}</td>
            </tr>
          ))}
        </tbody>
      </table> : null}
    </div>
  );
}

function Outcome(props: { outcome: BattleOutcome; catalog: Catalog }) {
  const { outcome, catalog } = props;
  const resolved = outcome.resolved;
  const pillage = outcome.pillage;
  return (
    <div class="battle-outcome">
      <p>
        Last: <b>{areaName(outcome.province)}</b>
        {resolved
          ? resolved.winner === undefined
            ? " — tie, nobody wins"
            : ` — ${clanOf(resolved.winner).name} wins`
          : ""}
        {pillage ? (pillage.success ? ` — pillaged (${rewardName(pillage.reward)})` : " — pillage failed") : ""}
      </p>
      {resolved ? (
        <ul>
          {resolved.totals.map((t) => {
            const cards = outcome.revealed.filter((c) => c.seat === t.seat && c.card).map((c) => catalog.cardName(c.card!.cardId));
            return (
              <li data-seat={t.seat}>
                <ClanMark seat={t.seat} /> {clanOf(t.seat).name}: {t.strength} STR
                {cards.length ? ` (${cards.join(", ")})` : ""}
              </li>
            );
          })}
        </ul>
      ) : null}
      {resolved?.destroyed.length ? (
        <p class="muted">
          To Valhalla: {resolved.destroyed.map((d) => `${clanOf(d.seat).name} ${unitName(d.unit)}`).join(", ")}
        </p>
      ) : null}
    </div>
  );
}

export function BattlePanel(props: { battle?: BattleView; step: Step; outcome?: BattleOutcome; catalog: Catalog }) {
  if (!props.battle && !props.outcome) return null;
  return (
    <section class="panel battle-panel" aria-label="Battle">
      <h2>Battle</h2>
      {props.battle ? <LiveBattle battle={props.battle} step={props.step} catalog={props.catalog} /> : null}
      {props.outcome && !(props.battle && props.battle.province === props.outcome.province && !props.outcome.resolved) ? (
        <Outcome outcome={props.outcome} catalog={props.catalog} />
      ) : null}
    </section>
  );
}

export function EventLog(props: { events: readonly Event[]; catalog: Catalog; names: readonly string[] }) {
  const lines = props.events.slice(-120).map((e) => describeEvent(e, props.catalog, props.names)).reverse();
  return (
    <section class="panel log" aria-label="Event log">
      <h2>Events</h2>
      <ol class="events">
        {lines.map((line) => (
          <li class={`event event-${line.kind}`} data-seq={String(line.sequence)}>
            {line.seat !== undefined ? <ClanMark seat={line.seat} /> : <span class="clan-mark none" />}
            <span>{line.text}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
