// Example Yggdrasil client in TypeScript: takes a seat in a game and plays random legal
// actions until the game is over, then prints the result.
//
//   node dist/example/random_bot.js --target 127.0.0.1:50051 --game-id ID [--seat N] [--session]
//   node dist/example/random_bot.js --target 127.0.0.1:50051 --players 2   (creates a game)
//
// An API key (--api-key, or $YGGDRASIL_API_KEY) is sent with every call as the metadata
// `authorization: Bearer <key>`; without one the server treats the bot as anonymous.
//
// Two ways to play, both complete:
//
// The frontends' way (default): GetView -> if this seat has legal actions, pick one and
// SubmitAction(legal_index, state_version, fresh idempotency key) -> repeat. When the seat is
// not awaited it waits for the next WatchGame message (the stream is only a wake-up signal;
// GetView stays the source of truth, with a slow poll as a fallback). FAILED_PRECONDITION
// (stale state_version, not this seat's decision) just means "look again".
//
// --session, the bots' way: one PlaySession stream. Open it (joining the seat from it); the
// server sends a message whenever the seat must decide (legalActions set), and the bot answers
// with a PlayDecision (legal index, the message's stateVersion, a fresh idempotency key).
// Answers to decisions come back in later messages (refusals at once, with SubmitAction's
// codes); a stale one just means the server asks again when it is the seat's turn. If the
// stream breaks, open it again with the seat token, fromSequence = last sequence + 1 and the
// decisions not answered yet in `resend` (same keys: nothing is applied twice).
// Exit status: 0 when the game is FINISHED, 1 on an error, ABORTED game or --timeout.

import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  ChannelCredentials,
  credentials,
  InterceptingCall,
  Metadata,
  status,
  type CallOptions,
  type ClientUnaryCall,
  type Interceptor,
  type ServiceError,
} from "@grpc/grpc-js";

import { GameStatus, type GameResult, type View } from "../src/gen/yggdrasil/v1/game";
import {
  CreateGameRequest,
  GameServiceClient,
  GetResultRequest,
  GetViewRequest,
  JoinGameRequest,
  PlayDecision,
  PlaySessionRequest,
  type PlaySessionResponse,
  SubmitActionRequest,
  WatchGameRequest,
  type WatchGameResponse,
} from "../src/gen/yggdrasil/v1/game_service";

interface Options {
  target: string;
  gameId: string;
  players: number;
  seat: number | undefined;
  name: string;
  seed: number | undefined;
  timeoutS: number;
  verbose: boolean;
  apiKey: string;
  session: boolean;
  tls: boolean;
  caFile: string;
  joinCode: string;
}

const USAGE = `usage: random_bot [--target HOST:PORT] [--game-id ID | --players N] [--seat N]
                  [--name NAME] [--seed N] [--timeout SECONDS] [--api-key KEY] [--verbose]
                  [--session] [--tls] [--ca-file FILE] [--join-code CODE]
  --target    server address (default $YGGDRASIL_TARGET or 127.0.0.1:50051)
  --game-id   game to join; without it a new game of --players seats (default 2) is created
              and its id printed, so that other players can join it
  --seat      seat to claim (default: the lowest free seat)
  --name      player name (default ts-random-bot)
  --seed      seed of the random choices (default: unseeded)
  --timeout   give up after this many seconds (default 600)
  --api-key   API key sent to the server (default $YGGDRASIL_API_KEY; prefer the variable,
              flags are visible to other users)
  --verbose   log every decision
  --session   play over one PlaySession stream (the bots' way) instead of GetView,
              SubmitAction and WatchGame
  --tls       connect with TLS, checking the server with the system's CAs or --ca-file
              (default: on when $YGGDRASIL_TLS or $YGGDRASIL_CA_FILE is set)
  --ca-file   PEM CA certificate(s) to check the server's certificate with; implies --tls
              (default $YGGDRASIL_CA_FILE)
  --join-code join code of a reserved seat (default $YGGDRASIL_JOIN_CODE)`;

function parseArgs(argv: string[]): Options {
  const opts: Options = {
    target: process.env.YGGDRASIL_TARGET || "127.0.0.1:50051",
    gameId: "",
    players: 2,
    seat: undefined,
    name: "ts-random-bot",
    seed: undefined,
    timeoutS: 600,
    verbose: false,
    apiKey: process.env.YGGDRASIL_API_KEY || "",
    session: false,
    tls: Boolean(process.env.YGGDRASIL_TLS),
    caFile: process.env.YGGDRASIL_CA_FILE || "",
    joinCode: process.env.YGGDRASIL_JOIN_CODE || "",
  };
  const intArg = (flag: string, value: string | undefined): number => {
    const n = Number(value);
    if (value === undefined || !Number.isInteger(n) || n < 0) {
      throw new UsageError(`${flag} needs a non-negative integer, got ${value ?? "nothing"}`);
    }
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case "--target": opts.target = value(); break;
      case "--game-id": opts.gameId = value(); break;
      case "--players": opts.players = intArg(flag, argv[++i]); break;
      case "--seat": opts.seat = intArg(flag, argv[++i]); break;
      case "--name": opts.name = value(); break;
      case "--seed": opts.seed = intArg(flag, argv[++i]); break;
      case "--timeout": opts.timeoutS = intArg(flag, argv[++i]); break;
      case "--api-key": opts.apiKey = value(); break;
      case "--verbose": opts.verbose = true; break;
      case "--session": opts.session = true; break;
      case "--tls": opts.tls = true; break;
      case "--ca-file": opts.caFile = value(); break;
      case "--join-code": opts.joinCode = value(); break;
      case "-h": case "--help": console.log(USAGE); process.exit(0);
      default: throw new UsageError(`unknown argument ${flag}`);
    }
  }
  return opts;
}

class UsageError extends Error {}

// mulberry32: a small seedable PRNG, so that a run can be repeated with --seed.
function makeRandom(seed: number | undefined): () => number {
  if (seed === undefined) return Math.random;
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const RPC_TIMEOUT_MS = 10_000;

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

// Every call about a game carries `x-game-id`: a cluster's proxy hashes it to the node that
// owns the game (a single server ignores it).
function gameMetadata(request: unknown): Metadata {
  const metadata = new Metadata();
  const gameId = (request as { gameId?: string }).gameId;
  if (gameId) metadata.set("x-game-id", gameId);
  return metadata;
}

// Promise wrapper for one unary call with a deadline.
function call<Req, Res>(method: UnaryMethod<Req, Res>, request: Req): Promise<Res> {
  return new Promise((resolve, reject) => {
    method(request, gameMetadata(request), { deadline: Date.now() + RPC_TIMEOUT_MS }, (err, res) =>
      err ? reject(err) : resolve(res),
    );
  });
}

// Transient ends of a unary call (the server restarting: calls in flight end CANCELLED, new
// ones UNAVAILABLE until it is back; a connection lost; a cluster node that died behind the
// proxy after it took the call: INTERNAL "RST_STREAM with error code 2"): the same request is
// sent again after a pause, until the bot's deadline. Safe for every call retried here:
// reads, SubmitAction, whose idempotency key keeps a retry from applying it twice, and
// JoinGame with a seat token of our own (the same seat back). (The bot never cancels a unary
// call itself.)
const TRANSIENT = [
  status.UNAVAILABLE,
  status.DEADLINE_EXCEEDED,
  status.CANCELLED,
  status.INTERNAL,
  status.UNKNOWN,
];

async function retrying<Req, Res>(
  name: string,
  method: UnaryMethod<Req, Res>,
  request: Req,
  deadline: number,
): Promise<Res> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(method, request);
    } catch (err) {
      if (!isServiceError(err) || !TRANSIENT.includes(err.code) || Date.now() > deadline) throw err;
      log(`${name}: ${err.message}; retrying`);
      await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** Math.min(attempt, 5))));
    }
  }
}

function isServiceError(err: unknown): err is ServiceError {
  return typeof err === "object" && err !== null && "code" in err && "details" in err;
}

function log(message: string): void {
  console.error(`[random_bot] ${message}`);
}

// Wakes the play loop whenever a WatchGame message arrives. Reconnects if the stream breaks,
// resuming after the last message seen: a server that shuts down ends the stream with
// UNAVAILABLE and "... resume with from_sequence N", which is that same point (or an earlier
// one, if messages in flight were lost: then they come again).
class Notifier {
  private counter = 0;
  private waiters: Array<() => void> = [];
  private stream: ReturnType<GameServiceClient["watchGame"]> | undefined;
  private stopped = false;
  private nextSequence = 0n; // 0: from now on (the first message is a full view)
  private failures = 0; // reconnections since the last message

  constructor(private client: GameServiceClient, private gameId: string, private seatToken: string) {}

  start(): void {
    if (this.stopped) return;
    const request = WatchGameRequest.fromPartial({
      gameId: this.gameId,
      seatToken: this.seatToken,
      fromSequence: this.nextSequence,
    });
    const stream = this.client.watchGame(request, gameMetadata(request));
    this.stream = stream;
    stream.on("data", (message: WatchGameResponse) => {
      this.nextSequence = message.sequence + 1n;
      this.failures = 0;
      this.bump();
    });
    stream.on("error", (err: ServiceError) => {
      if (this.stopped || err.code === status.CANCELLED) return;
      const resume = /resume with from_sequence (\d+)/.exec(err.details ?? "");
      log(`WatchGame: ${err.message}; reconnecting` + (resume ? ` from ${resume[1]}` : ""));
    });
    stream.on("status", () => {
      this.bump();
      // Again at once after a message, then less and less often while the server is away.
      const pause = Math.min(2000, 200 * 2 ** Math.min(this.failures++, 4));
      if (!this.stopped && this.stream === stream) setTimeout(() => this.start(), pause);
    });
  }

  /** A number that grows with every message; pass it to wait(). */
  get mark(): number {
    return this.counter;
  }

  /** Resolves once a message arrived after `mark` was read, or after `maxMs`. */
  wait(mark: number, maxMs: number): Promise<void> {
    if (this.counter > mark) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, maxMs);
      const waiters = this.waiters;
      function done(): void {
        clearTimeout(timer);
        const i = waiters.indexOf(done);
        if (i >= 0) waiters.splice(i, 1);
        resolve();
      }
      waiters.push(done);
    });
  }

  stop(): void {
    this.stopped = true;
    this.stream?.cancel();
    this.bump();
  }

  private bump(): void {
    this.counter++;
    for (const w of this.waiters.splice(0)) w();
  }
}

function formatResult(result: GameResult | undefined, seat: number): string {
  if (!result) return "(no result)";
  const lines = result.seats.map(
    (s) =>
      `  seat ${s.seat} ${JSON.stringify(s.name)}: score ${s.score}, rank ${s.rank}` +
      `${s.winner ? " (winner)" : ""}${s.seat === seat ? " <- this bot" : ""}`,
  );
  return [`winners: ${result.winners.join(", ")}`, ...lines].join("\n");
}

// TLS (the server's certificate checked against --ca-file, else the system's CAs), or
// plaintext: only for loopback and private networks, since seat tokens are bearer secrets.
function channelCredentials(opts: Options): ChannelCredentials {
  if (!opts.tls && !opts.caFile) return credentials.createInsecure();
  return credentials.createSsl(opts.caFile ? readFileSync(opts.caFile) : null);
}

// Adds `authorization: Bearer <key>` to the metadata of every call of the client.
function bearerKey(apiKey: string): Interceptor {
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set("authorization", `Bearer ${apiKey}`);
        next(metadata, listener);
      },
    });
}

const OVER = [GameStatus.GAME_STATUS_FINISHED, GameStatus.GAME_STATUS_ABORTED];
// Transient ends of a PlaySession stream: open it again (a proxy whose node died resets the
// stream: INTERNAL).
const RESUMABLE = [
  status.UNAVAILABLE,
  status.DEADLINE_EXCEEDED,
  status.CANCELLED,
  status.INTERNAL,
  status.UNKNOWN,
];

/** Play the seat over PlaySession streams (reopened after a break) until the game is over. */
async function playSession(
  client: GameServiceClient,
  opts: Options,
  gameId: string,
  random: () => number,
  deadline: number,
): Promise<number> {
  // Chosen here so that a join whose answer is lost can be repeated safely (same seat back).
  let seatToken = "";
  const joinToken = randomBytes(32).toString("base64url");
  let nextSequence = 0n;
  let unanswered: PlayDecision[] = [];
  let decisions = 0;
  let stale = 0;
  let seat = -1;
  for (let attempt = 1; ; attempt++) {
    if (Date.now() > deadline) {
      log(`timeout: the game did not finish within ${opts.timeoutS} s`);
      return 1;
    }
    const stream = client.playSession({ deadline: deadline });
    const open = seatToken
      ? { gameId, seatToken, fromSequence: nextSequence, resend: unanswered }
      : {
          gameId,
          join: {
            seat: opts.seat,
            playerName: opts.name,
            seatToken: joinToken,
            joinCode: opts.joinCode,
          },
          fromSequence: nextSequence,
          resend: unanswered,
        };
    stream.write(PlaySessionRequest.fromPartial({ open }));
    try {
      for await (const message of stream as AsyncIterable<PlaySessionResponse>) {
        attempt = 0;
        if (message.seatToken) {
          seatToken = message.seatToken;
          log(`joined game ${gameId} as seat ${message.seat}`);
        }
        seat = message.seat;
        nextSequence = message.sequence + 1n;
        for (const answer of message.answers) {
          unanswered = unanswered.filter((d) => d.idempotencyKey !== answer.idempotencyKey);
          if (answer.code === status.OK) decisions++;
          else if (answer.code === status.FAILED_PRECONDITION) stale++;
          else throw new Error(`decision refused: ${status[answer.code]}: ${answer.message}`);
        }
        if (OVER.includes(message.status)) {
          stream.end();
          if (message.status === GameStatus.GAME_STATUS_ABORTED) {
            log(`game ${gameId} was aborted by the server`);
            return 1;
          }
          console.log(
            `game ${gameId} finished after ${decisions} decisions of seat ${seat}` +
              ` (${stale} refused as stale; PlaySession)\n${formatResult(message.result, seat)}`,
          );
          return 0;
        }
        if (message.legalActions.length > 0) {
          const choice = message.legalActions[Math.floor(random() * message.legalActions.length)];
          const decision = PlayDecision.fromPartial({
            legalIndex: choice.index,
            stateVersion: message.stateVersion,
            idempotencyKey: randomUUID(),
          });
          if (opts.verbose) log(`v${message.stateVersion}: ${choice.label}`);
          unanswered.push(decision);
          stream.write(PlaySessionRequest.fromPartial({ decision }));
        }
      }
      log("PlaySession ended before the game did; opening it again");
    } catch (err) {
      if (!isServiceError(err) || !RESUMABLE.includes(err.code)) throw err;
      log(`PlaySession: ${err.message}; opening it again`);
    } finally {
      stream.cancel();
    }
    await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** Math.min(attempt, 5))));
  }
}

async function play(opts: Options): Promise<number> {
  // Keepalive pings while a call is open: a server that vanished without closing the
  // connection then fails the WatchGame stream within half a minute instead of never.
  const client = new GameServiceClient(opts.target, channelCredentials(opts), {
    "grpc.keepalive_time_ms": 20_000,
    "grpc.keepalive_timeout_ms": 10_000,
    interceptors: opts.apiKey ? [bearerKey(opts.apiKey)] : [],
  });
  const random = makeRandom(opts.seed);
  let notifier: Notifier | undefined;
  const deadline = Date.now() + opts.timeoutS * 1000;
  try {
    let gameId = opts.gameId;
    if (!gameId) {
      const created = await call(
        client.createGame.bind(client),
        CreateGameRequest.fromPartial({ options: { playerCount: opts.players } }),
      );
      gameId = created.gameId;
      console.log(`created game ${gameId} (${opts.players} seats)`);
    }
    if (opts.session) return await playSession(client, opts, gameId, random, deadline);
    // A token of our own makes the join safe to resend: a retry gets the same seat back.
    const joined = await retrying(
      "JoinGame",
      client.joinGame.bind(client),
      JoinGameRequest.fromPartial({
        gameId,
        seat: opts.seat,
        playerName: opts.name,
        seatToken: randomBytes(32).toString("base64url"),
        joinCode: opts.joinCode,
      }),
      deadline,
    );
    const seat = joined.seat;
    const seatToken = joined.seatToken;
    log(`joined game ${gameId} as seat ${seat}`);
    notifier = new Notifier(client, gameId, seatToken);
    notifier.start();

    let decisions = 0;
    let refusals = 0;
    for (;;) {
      if (Date.now() > deadline) {
        log(`timeout: the game did not finish within ${opts.timeoutS} s`);
        return 1;
      }
      const mark = notifier.mark;
      const view: View | undefined = (
        await retrying(
          "GetView",
          client.getView.bind(client),
          GetViewRequest.fromPartial({ gameId, seatToken }),
          deadline,
        )
      ).view;
      if (!view) throw new Error("GetView returned no view");
      if (view.status === GameStatus.GAME_STATUS_FINISHED) {
        const result =
          view.result ??
          (
            await retrying(
              "GetResult",
              client.getResult.bind(client),
              GetResultRequest.fromPartial({ gameId }),
              deadline,
            )
          ).result;
        console.log(
          `game ${gameId} finished after ${decisions} decisions of seat ${seat}` +
            ` (${refusals} refused as stale)\n${formatResult(result, seat)}`,
        );
        return 0;
      }
      if (view.status === GameStatus.GAME_STATUS_ABORTED) {
        log(`game ${gameId} was aborted by the server`);
        return 1;
      }
      if (view.legalActions.length === 0) {
        // Not our decision (or the game is still OPEN): wait for the next event.
        await notifier.wait(mark, 1000);
        continue;
      }
      const choice = view.legalActions[Math.floor(random() * view.legalActions.length)];
      const request = SubmitActionRequest.fromPartial({
        gameId,
        seatToken,
        legalIndex: choice.index,
        stateVersion: view.stateVersion,
        idempotencyKey: randomUUID(),
      });
      if (opts.verbose) log(`v${view.stateVersion}: ${choice.label}`);
      try {
        await retrying("SubmitAction", client.submitAction.bind(client), request, deadline);
        decisions++;
      } catch (err) {
        // Stale state_version or no longer awaited: refresh the view and decide again.
        if (!isServiceError(err) || err.code !== status.FAILED_PRECONDITION) throw err;
        refusals++;
        if (opts.verbose) log(`refused (${err.details}); refreshing`);
      }
    }
  } finally {
    notifier?.stop();
    client.close();
  }
}

async function main(): Promise<void> {
  let opts: Options;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`random_bot: ${err.message}\n${USAGE}`);
      process.exitCode = 2;
      return;
    }
    throw err;
  }
  try {
    process.exitCode = await play(opts);
  } catch (err) {
    const message = isServiceError(err) ? `${status[err.code]}: ${err.details}` : String(err);
    console.error(`random_bot: ${message}`);
    process.exitCode = 1;
  }
}

void main();
