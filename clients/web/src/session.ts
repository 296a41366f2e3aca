// One viewer's live connection to one game: the newest view, the event log and the last
// battle's outcome, kept up to date from WatchGame and resumed after any interruption.
//
// Rules that keep it honest:
// - A view replaces the current one only if it is at least as new (last_sequence), so the
//   view from a SubmitAction reply and the views on the stream can arrive in any order.
// - A dropped stream is reopened from the last sequence seen (events are not lost); the
//   initial connection starts a little in the past, to fill the log.
// - A decision refused as stale (FAILED_PRECONDITION) refetches the view and asks again: it
//   is the normal race with other seats, not an error. A transient end (UNAVAILABLE; INTERNAL
//   or UNKNOWN, what Envoy answers when the cluster node that took the call died; a deadline)
//   resends the same request with the same idempotency key, for up to two minutes, so a
//   decision is never applied twice and never lost to a node that moved its games.
import { Code, ConnectError } from "@connectrpc/connect";
import type { GameClient } from "./api.js";
import { GAME_ID_HEADER, randomKey } from "./api.js";
import type {
  BattleResolved,
  PillageResult,
  SeatCard,
} from "./gen/yggdrasil/v1/blood_rage_pb.js";
import { Area } from "./gen/yggdrasil/v1/blood_rage_pb.js";
import type { Event, View } from "./gen/yggdrasil/v1/game_pb.js";
import { GameStatus } from "./gen/yggdrasil/v1/game_pb.js";
import type { WatchGameResponse } from "./gen/yggdrasil/v1/game_service_pb.js";
import { SeatTokens } from "./tokens.js";

/** What the last battle (or undefended pillage) came to, gathered from its events. */
export interface BattleOutcome {
  province: Area;
  revealed: SeatCard[];
  resolved?: BattleResolved;
  pillage?: PillageResult;
}

export type Connection = "connecting" | "live" | "reconnecting" | "ended";

export interface SessionState {
  view?: View;
  log: Event[];
  lastBattle?: BattleOutcome;
  connection: Connection;
  /** Something to tell the viewer (not an error): e.g. the game moved on. */
  notice?: string;
  /** Why this page cannot show the game (unknown game, ...). */
  error?: string;
  submitting: boolean;
  /** The viewer's seat token, if it plays a seat. */
  token?: string;
}

const LOG_LIMIT = 400;
// Ends of a SubmitAction after which the same request (same idempotency key) is sent again.
const RESEND = [Code.Unavailable, Code.Internal, Code.Unknown, Code.DeadlineExceeded];
// How long a decision is resent: a dead node's games move once its lease ran out.
const RESEND_PATIENCE_MS = 120_000;
const HISTORY = 60n; // events fetched from the past when the page opens

export class GameSession {
  state: SessionState;
  private listeners = new Set<() => void>();
  private abort = new AbortController();
  private stopped = false;

  constructor(
    private readonly client: GameClient,
    readonly gameId: string,
    token: string | undefined,
    private readonly tokens?: SeatTokens,
    private readonly retryDelayMs = 500,
  ) {
    this.state = { log: [], connection: "connecting", submitting: false, token };
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private update(patch: Partial<SessionState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  private viewer() {
    return this.state.token
      ? { case: "seatToken" as const, value: this.state.token }
      : { case: "spectator" as const, value: {} };
  }

  /** Take ``view`` if it is not older than the current one. */
  acceptView(view: View): void {
    const current = this.state.view;
    if (current && view.lastSequence < current.lastSequence) return;
    if (current && view.lastSequence === current.lastSequence && view.stateVersion < current.stateVersion)
      return;
    this.update({ view });
  }

  acceptEvent(event: Event): void {
    const log = this.state.log;
    const last = log.length ? log[log.length - 1].sequence : 0n;
    if (event.sequence <= last) return;
    const next = log.length >= LOG_LIMIT ? log.slice(log.length - LOG_LIMIT + 1) : log.slice();
    next.push(event);
    this.update({ log: next, lastBattle: foldBattle(this.state.lastBattle, event) });
  }

  onMessage(message: WatchGameResponse): void {
    if (message.view) this.acceptView(message.view);
    if (message.event) this.acceptEvent(message.event);
  }

  /** Fetch the current view (after a stale decision or a reconnect). */
  async refresh(): Promise<void> {
    const reply = await this.client.getView({ gameId: this.gameId, viewer: this.viewer() });
    if (reply.view) this.acceptView(reply.view);
  }

  private finished(): boolean {
    const status = this.state.view?.status;
    return status === GameStatus.FINISHED || status === GameStatus.ABORTED;
  }

  /** Follow the game until it ends or ``stop()``; never throws. */
  async run(): Promise<void> {
    let delay = this.retryDelayMs;
    let first = true;
    while (!this.stopped) {
      try {
        if (first) {
          await this.refresh();
          first = false;
        }
        const view = this.state.view;
        const newest = this.state.log.length
          ? this.state.log[this.state.log.length - 1].sequence
          : view && view.lastSequence > HISTORY
            ? view.lastSequence - HISTORY
            : 0n;
        const from = newest + 1n;
        const stream = this.client.watchGame(
          { gameId: this.gameId, viewer: this.viewer(), fromSequence: from, includeViews: true },
          { signal: this.abort.signal, headers: { [GAME_ID_HEADER]: this.gameId } },
        );
        for await (const message of stream) {
          if (this.state.connection !== "live") this.update({ connection: "live" });
          this.onMessage(message);
          delay = this.retryDelayMs;
        }
        if (this.finished()) {
          this.update({ connection: "ended" });
          return;
        }
      } catch (e) {
        if (this.stopped) return;
        const error = ConnectError.from(e);
        if (error.code === Code.NotFound) {
          this.update({ error: `No game ${this.gameId} on this server.`, connection: "ended" });
          return;
        }
        if (error.code === Code.PermissionDenied && this.state.token) {
          // The saved token no longer holds a seat (e.g. the server lost the game's claims):
          // go on watching as a spectator.
          this.tokens?.forget(this.gameId);
          this.update({ token: undefined, notice: "Your saved seat is no longer valid: watching." });
          first = true;
          continue;
        }
        if (error.code === Code.OutOfRange) this.update({ log: [] }); // resume point unknown
        if (this.finished()) {
          this.update({ connection: "ended" });
          return;
        }
      }
      this.update({ connection: "reconnecting" });
      await sleep(delay);
      delay = Math.min(delay * 2, 5000);
      first = true;
    }
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    this.listeners.clear();
  }

  /** Send legal action ``index`` of the current view. */
  async choose(index: number): Promise<void> {
    const view = this.state.view;
    const token = this.state.token;
    if (!view || !token || this.state.submitting) return;
    if (index < 0 || index >= view.legalActions.length) return;
    this.update({ submitting: true, notice: undefined });
    const key = randomKey(18);
    const giveUp = Date.now() + RESEND_PATIENCE_MS;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const reply = await this.client.submitAction({
            gameId: this.gameId,
            seatToken: token,
            choice: { case: "legalIndex", value: index },
            stateVersion: view.stateVersion,
            idempotencyKey: key,
            includeView: true,
          });
          if (reply.view) this.acceptView(reply.view);
          for (const event of reply.events) this.acceptEvent(event);
          return;
        } catch (e) {
          const error = ConnectError.from(e);
          if (RESEND.includes(error.code) && Date.now() < giveUp && !this.stopped) {
            await sleep(Math.min(2000, 200 * 2 ** attempt));
            continue;
          }
          if (error.code === Code.FailedPrecondition) {
            await this.refresh();
            this.update({ notice: "The game moved on before your choice arrived: choose again." });
            return;
          }
          this.update({ notice: `Not sent: ${error.rawMessage}` });
          return;
        }
      }
    } finally {
      this.update({ submitting: false });
    }
  }
}

/** The last battle's outcome after ``event`` (a new reveal or pillage starts a new one). */
export function foldBattle(current: BattleOutcome | undefined, event: Event): BattleOutcome | undefined {
  if (event.payload.case !== "bloodRage") return current;
  const kind = event.payload.value.kind;
  switch (kind.case) {
    case "battleRevealed": {
      const same = current && current.province === kind.value.province && !current.resolved;
      return {
        province: kind.value.province,
        revealed: same ? [...current.revealed, ...kind.value.cards] : [...kind.value.cards],
      };
    }
    case "battleResolved": {
      const same = current && current.province === kind.value.province && !current.resolved;
      return { province: kind.value.province, revealed: same ? current.revealed : [], resolved: kind.value };
    }
    case "pillageResult": {
      const same = current && current.province === kind.value.province && !current.pillage;
      return same
        ? { ...current, pillage: kind.value }
        : { province: kind.value.province, revealed: [], pillage: kind.value };
    }
    default:
      return current;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Claim ``seat`` (undefined: the lowest free one) of ``gameId`` with a token chosen and
 *  saved first; returns the seat record. A repeated call after a lost reply reuses the
 *  saved unconfirmed token, so it can only ever claim one seat. */
export async function joinSeat(
  client: GameClient,
  tokens: SeatTokens,
  gameId: string,
  seat: number | undefined,
  name: string,
) {
  const earlier = tokens.get(gameId);
  const token = earlier && !earlier.confirmed ? earlier.token : SeatTokens.fresh();
  tokens.put({ gameId, seat: seat ?? -1, token, name, confirmed: false });
  try {
    const reply = await client.joinGame({ gameId, seat, playerName: name, seatToken: token });
    const record = { gameId, seat: reply.seat, token, name, confirmed: true };
    tokens.put(record);
    return record;
  } catch (e) {
    const error = ConnectError.from(e);
    if (error.code !== Code.Unavailable && error.code !== Code.DeadlineExceeded) tokens.forget(gameId);
    throw error;
  }
}
