// A spectator page follows a 4-bot game to the end. Before the bots start, while every seat
// holds its first draft pack, the spectator page's DOM must hold no card name of any pack
// or hand (checked against each seat's own view; the same check on a seat's page finds that
// seat's cards, so it can fail).
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, expect, inject, test } from "vitest";
import type { Browser, Page } from "playwright-core";
import { GameStatus } from "../src/gen/yggdrasil/v1/game_pb.js";
import { apiClient } from "./api.js";
import { DESKTOP, PHONE, launch, watchErrors } from "./browser.js";

let browser: Browser;
const bots: ChildProcess[] = [];
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  for (const bot of bots) if (bot.exitCode === null) bot.kill("SIGTERM");
  await browser?.close();
});

/** Everything the page body holds as text, its serialised DOM with attributes: [outside the
 *  board, the board]. Some quest cards are named after a region or province ("Manheim"),
 *  which the board names too, so the board is checked for the other names only. */
async function domText(page: Page): Promise<[string, string]> {
  return page.evaluate(() => {
    const copy = document.body.cloneNode(true) as HTMLElement;
    const board = copy.querySelector("svg.board");
    const boardText = board?.outerHTML ?? "";
    board?.remove();
    return [copy.outerHTML, boardText];
  });
}

const BOARD_WORDS = /^(Yggdrasil|Manheim|Jotunheim|Alfheim|Myrkulor|Elvagar|Angerboda|Muspelheim|Horgr|Utgard|Andlang|Gimle)$/;

function hiddenIn([page, board]: [string, string], names: Iterable<string>): string[] {
  return [...names].filter((name) => page.includes(name) || (!BOARD_WORDS.test(name) && board.includes(name)));
}

test("a spectator follows a 4-bot game to the end and never sees a pack or hand", async () => {
  const stack = inject("stack");
  const client = apiClient(stack.url);
  const catalog = (await client.getCatalog({})).game;
  if (catalog.case !== "bloodRage") throw new Error("no catalog");
  const names = new Map(catalog.value.cards.map((c) => [c.cardId, c.name]));

  const created = await client.createGame({
    options: { playerCount: 4, seed: 4242n, seatNames: ["Ann", "Bo", "Cy", "Di"] },
  });
  const gameId = created.gameId;

  const watcher = await browser.newPage({ viewport: DESKTOP });
  const errors = watchErrors(watcher);
  await watcher.goto(`${stack.url}#/watch/${gameId}`);
  await watcher.waitForSelector(".board");

  // Claim the four seats (the game starts), but let nobody pick yet.
  const tokens: string[] = [];
  for (let seat = 0; seat < 4; seat++) {
    const token = `e2e-${gameId}-seat-${seat}-${"x".repeat(24)}`;
    await client.joinGame({ gameId, seat, seatToken: token });
    tokens.push(token);
  }
  await expect.poll(() => watcher.textContent(".game-head .phase"), { timeout: 30_000 }).toContain("draft");

  const secret = new Map<number, Set<string>>();
  for (const [seat, token] of tokens.entries()) {
    const view = (await client.getView({ gameId, viewer: { case: "seatToken", value: token } })).view!;
    expect(view.game.case).toBe("bloodRage");
    const own = view.game.case === "bloodRage" ? view.game.value.own : undefined;
    const cards = [...(own?.draftPack ?? []), ...(own?.hand ?? []), ...(own?.pendingPicks ?? [])];
    expect(cards.length, `seat ${seat} holds a pack`).toBeGreaterThan(0);
    secret.set(seat, new Set(cards.map((c) => names.get(c.cardId) ?? c.cardId)));
  }
  const everySecret = new Set([...secret.values()].flatMap((s) => [...s]));
  expect(everySecret.size).toBeGreaterThan(5);
  expect(await watcher.locator(".own-cards, .decision.yours").count()).toBe(0);
  expect(hiddenIn(await domText(watcher), everySecret)).toEqual([]);
  await watcher.screenshot({ path: `${stack.artifacts}/spectator-draft-1280x720.png` });

  // The same check on seat 0's own page finds seat 0's pack: the check can fail.
  const seatPage = await browser.newPage({ viewport: DESKTOP });
  await seatPage.addInitScript(
    ([id, token]) => {
      const record = { gameId: id, seat: 0, token, name: "Ann", confirmed: true };
      window.localStorage.setItem("yggdrasil.seats.v1", JSON.stringify({ [id]: record }));
    },
    [gameId, tokens[0]] as const,
  );
  await seatPage.goto(`${stack.url}#/game/${gameId}`);
  await seatPage.waitForSelector(".own-cards .card");
  expect(hiddenIn(await domText(seatPage), secret.get(0)!).length).toBeGreaterThan(0);
  await seatPage.close();

  // Now the bots play every seat; the spectator page follows to the result.
  for (const [seat, token] of tokens.entries()) {
    const bot = spawn(
      stack.python,
      ["-m", "clients.sdk", "--server", stack.grpc, "--game", gameId, "--token", token, "--bot", "random", "--seed", String(seat)],
      { cwd: stack.root, stdio: ["ignore", "ignore", "inherit"] },
    );
    bots.push(bot);
  }
  let midGame = false;
  const deadline = Date.now() + 400_000;
  while (!(await watcher.locator(".result tbody tr").count())) {
    expect(Date.now(), "the spectator page should reach the result").toBeLessThan(deadline);
    if (!midGame && (await watcher.locator(".board .province .figure").count()) >= 10) {
      midGame = true;
      await watcher.screenshot({ path: `${stack.artifacts}/spectator-1280x720.png` });
    }
    await watcher.waitForTimeout(250);
  }
  await Promise.all(bots.map((bot) => (bot.exitCode !== null ? bot.exitCode : new Promise((r) => bot.once("exit", r)))));
  for (const bot of bots) expect(bot.exitCode).toBe(0);

  expect(await watcher.locator(".result tbody tr").count()).toBe(4);
  const result = (await client.getResult({ gameId })).result!;
  for (const seat of result.seats) {
    expect((await watcher.textContent(`.result tr[data-seat="${seat.seat}"] td:nth-child(3)`))?.trim()).toBe(String(seat.score));
  }
  const view = (await client.getView({ gameId, viewer: { case: "spectator", value: {} } })).view!;
  expect(view.status).toBe(GameStatus.FINISHED);
  expect(await watcher.locator(".events .event").count()).toBeGreaterThan(20);
  await watcher.screenshot({ path: `${stack.artifacts}/spectator-result-1280x720.png` });
  await watcher.setViewportSize(PHONE);
  await watcher.screenshot({ path: `${stack.artifacts}/spectator-result-phone.png`, fullPage: true });
  expect(errors).toEqual([]);
});
