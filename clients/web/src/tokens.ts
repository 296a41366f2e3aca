// Seat tokens kept in local storage, so a reload or a dropped connection resumes the seat.
// The token is chosen here and stored before JoinGame is sent: a retried JoinGame with the
// same token answers with the seat it already holds, so a lost reply never loses the seat.
import { randomKey } from "./api.js";

export interface SeatRecord {
  gameId: string;
  seat: number;
  token: string;
  name: string;
  /** False until JoinGame has answered (the seat may or may not be ours yet). */
  confirmed: boolean;
}

const KEY = "yggdrasil.seats.v1";

function readAll(storage: Storage): Record<string, SeatRecord> {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(KEY) ?? "{}");
    return parsed && typeof parsed === "object" ? (parsed as Record<string, SeatRecord>) : {};
  } catch {
    return {};
  }
}

export class SeatTokens {
  constructor(private readonly storage: Storage = window.localStorage) {}

  all(): SeatRecord[] {
    return Object.values(readAll(this.storage));
  }

  get(gameId: string): SeatRecord | undefined {
    return readAll(this.storage)[gameId];
  }

  put(record: SeatRecord): void {
    const all = readAll(this.storage);
    all[record.gameId] = record;
    this.storage.setItem(KEY, JSON.stringify(all));
  }

  forget(gameId: string): void {
    const all = readAll(this.storage);
    delete all[gameId];
    this.storage.setItem(KEY, JSON.stringify(all));
  }

  /** A fresh seat token: 32 random bytes, URL-safe base64 (what JoinGame accepts). */
  static fresh(): string {
    return randomKey(32);
  }
}
