// The viewer's decision: the prompt in words, the time left, and the numbered legal actions
// (keys 1-9 and multi-digit numbers + Enter choose, as in the command-line client). A click
// on the board or on a card narrows the list to the actions for that place or card.
import { useEffect, useState } from "preact/hooks";
import type { LegalAction, View } from "../gen/yggdrasil/v1/game_pb.js";
import type { Catalog } from "../catalog.js";
import { decisionText, promptText } from "../actions.js";
import { clanOf, cleanLabel } from "../names.js";

/** A stopwatch drawn in SVG: the ⏱ glyph is missing from common fonts (an empty box). */
export function ClockIcon() {
  return (
    <svg class="icon clock" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
      <circle cx="8" cy="9" r="6" fill="none" stroke="currentColor" stroke-width="1.6" />
      <path d="M8 9 L8 5.5 M6.5 1.8 H9.5 M12.2 4.2 L13.4 3" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" />
    </svg>
  );
}

/** What a legal action costs and brings, from its details (the server works them out). */
function Costs(props: { action: LegalAction }) {
  const game = props.action.action?.game;
  const action = game?.case === "bloodRage" ? game.value : undefined;
  const details = action?.details;
  if (!details) return null;
  const kind = action?.kind.case;
  return (
    <>
      {details.rageCost && kind !== "passTurn" ? (
        <span class="cost" title={`costs ${details.rageCost} Rage`}>
          {details.rageCost} Rage
        </span>
      ) : null}
      {details.strength && kind !== "moveLeader" ? (
        <span class="strength" title="the figure's STR there">
          STR {details.strength}
        </span>
      ) : null}
    </>
  );
}

export function TimeLeft(props: { deadlineMs: bigint; now?: () => number }) {
  const now = props.now ?? Date.now;
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), 250);
    return () => clearInterval(timer);
  }, []);
  if (!props.deadlineMs) return null;
  const left = Math.max(0, Number(props.deadlineMs) - now());
  const seconds = Math.ceil(left / 1000);
  const text = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  return (
    <span class={`time-left${seconds <= 10 ? " urgent" : ""}`} role="timer" aria-label={`${seconds} seconds left to decide`}>
      <ClockIcon /> {text} left
    </span>
  );
}

export interface DecisionProps {
  view: View;
  catalog: Catalog;
  /** Legal action indexes to show (undefined: all). */
  only?: number[];
  onlyTitle?: string;
  onShowAll: () => void;
  onChoose: (index: number) => void;
  submitting: boolean;
  typed: string;
}

export function Decision(props: DecisionProps) {
  const { view, catalog, only, onlyTitle, onShowAll, onChoose, submitting, typed } = props;
  const br = view.game.case === "bloodRage" ? view.game.value : undefined;
  const names = view.seats.map((s) => s.name);
  const committed = new Set(view.committedSeats);
  const pending = view.awaitingSeats.filter((s) => !committed.has(s));
  const me = view.viewerSeat;
  const deadline = view.decisionDeadlineUnixMs;

  if (!view.legalActions.length) {
    const waitingFor = pending.filter((s) => s !== me).map((s) => `${clanOf(s).name}${names[s] ? ` (${names[s]})` : ""}`);
    return (
      <section class="panel decision waiting" aria-label="Decision">
        {me !== undefined && committed.has(me) ? <p class="ok">You have chosen.</p> : null}
        {br?.prompt && pending.includes(br.prompt.seat) ? (
          <p>
            Waiting for {clanOf(br.prompt.seat).name}: {promptText(br.prompt, catalog)}
          </p>
        ) : waitingFor.length ? (
          <p>Waiting for {waitingFor.join(", ")}…</p>
        ) : null}
        {deadline ? <TimeLeft deadlineMs={deadline} /> : null}
      </section>
    );
  }

  const shown = only ?? view.legalActions.map((_, i) => i);
  return (
    <section class="panel decision yours" aria-label="Decision">
      <h2>
        Your decision {deadline ? <TimeLeft deadlineMs={deadline} /> : null}
      </h2>
      <p class="prompt">{decisionText(view, catalog)}</p>
      {only ? (
        <p class="filter">
          {onlyTitle} <button class="link" onClick={onShowAll}>show all {view.legalActions.length}</button>
        </p>
      ) : null}
      <ol class="actions">
        {shown.map((index) => (
          <li>
            <button
              class="action"
              data-index={index}
              disabled={submitting}
              onClick={() => onChoose(index)}
            >
              <kbd>{index + 1}</kbd> <span class="label">{cleanLabel(view.legalActions[index].label) || `choice ${index + 1}`}</span>
              <Costs action={view.legalActions[index]} />
            </button>
          </li>
        ))}
      </ol>
      <p class="hint">
        Keys: type a number{view.legalActions.length > 9 ? " (then Enter)" : ""} to choose{typed ? ` — typed ${typed}` : ""}.
      </p>
    </section>
  );
}
