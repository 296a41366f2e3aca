// Fire & Axe in the browser: a person creates a game from the lobby (Fire & Axe chosen, the
// other seat a Python bot), sees the board drawn from the demo pack (said plainly to be
// invented) and plays the whole game by every means the page offers: clicking highlighted
// places on the board, clicking Runes in hand, number keys, the action list. What to choose
// comes from the heuristic bot (e2e/fae_advisor.py, given the seat's own view), so that the
// game goes somewhere. Half-way the page is reloaded and resumes the seat. A spectator
// follows the same game. Screenshots go to artifacts/ (docs/ has copies).
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, expect, inject, test } from "vitest";
import type { Browser, Page } from "playwright-core";
import { GameStatus } from "../src/gen/yggdrasil/v1/game_pb.js";
import { apiClient } from "./api.js";
import { DESKTOP, PHONE, launch, watchErrors } from "./browser.js";

let browser: Browser;
let advisor: ChildProcessWithoutNullStreams;
const pending: ((line: string) => void)[] = [];
let buffered = "";

beforeAll(async () => {
  browser = await launch();
  const stack = inject("stack");
  advisor = spawn(stack.python, [join(stack.root, "clients/web/e2e/fae_advisor.py")], { cwd: stack.root });
  advisor.stdout.on("data", (d) => {
    buffered += String(d);
    let at: number;
    while ((at = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      pending.shift()?.(line);
    }
  });
});
afterAll(async () => {
  advisor?.kill();
  await browser?.close();
});

function advise(question: object): Promise<number> {
  return new Promise((resolve) => {
    pending.push((line) => resolve(Number.parseInt(line, 10)));
    advisor.stdin.write(JSON.stringify(question) + "\n");
  });
}

async function waitForTurn(page: Page): Promise<"decide" | "over"> {
  const handle = await page.waitForFunction(
    () => {
      if (document.querySelector(".result")) return "over";
      const yours = document.querySelector(".decision.yours");
      if (yours && yours.querySelector("button.action:not(:disabled)")) return "decide";
      return false;
    },
    undefined,
    { timeout: 120_000, polling: 50 },
  );
  return (await handle.jsonValue()) as "decide" | "over";
}

async function waitForChange(page: Page, before: string | null): Promise<void> {
  await page.waitForFunction(
    (v) => {
      const main = document.querySelector("main.game");
      return !!document.querySelector(".result") || !main || main.getAttribute("data-version") !== v;
    },
    before,
    { timeout: 120_000, polling: 50 },
  );
}

test("a person plays a whole Fire & Axe game in the browser against a Python bot", async () => {
  const stack = inject("stack");
  const client = apiClient(stack.url);
  const page = await browser.newPage({ viewport: DESKTOP });
  const errors = watchErrors(page);
  await page.goto(stack.url);
  await page.selectOption('select[name="game"]', "fireAndAxe");
  await page.waitForSelector(".fae-options");
  expect(await page.textContent(".fae-options")).toContain("not the published game");
  await page.screenshot({ path: `${stack.artifacts}/fae-lobby-1280x720.png` });
  await page.fill('input[name="name"]', "Astrid");
  await page.selectOption('select[name="players"]', "2");
  await page.check('input[name="others"] >> nth=0');
  await page.fill('input[name="seed"]', "11");
  await page.click("text=Create and play");
  await page.waitForSelector(".fae-board");
  const gameId = /#\/game\/([\w-]+)/.exec(page.url())?.[1];
  expect(gameId).toBeTruthy();
  await expect.poll(() => page.textContent(".viewer")).toContain("You play");
  expect(await page.textContent(".demo-banner")).toContain("NOT the published Fire & Axe");
  // The board: every place of the pack, ports with their values, the Wind Dial's zones.
  const places = await page.locator(".fae-board .place").count();
  expect(places).toBeGreaterThan(40);
  expect(await page.textContent(".fae-board")).toContain("Constantinople");
  expect(await page.locator(".fae-board .zone-label").count()).toBe(4);

  // A spectator follows the same game in a second page.
  const watcher = await browser.newPage({ viewport: DESKTOP });
  const watcherErrors = watchErrors(watcher);
  await watcher.goto(`${stack.url}/#/watch/${gameId}`);
  await watcher.waitForSelector(".fae-board");
  expect(await watcher.textContent(".viewer")).toContain("Spectating");

  const used = { board: 0, rune: 0, key: 0, list: 0 };
  const shot = new Set<string>();
  const screenshot = async (name: string, phoneToo = false) => {
    if (shot.has(name)) return;
    shot.add(name);
    await page.screenshot({ path: `${stack.artifacts}/${name}-1280x720.png` });
    if (phoneToo) {
      await page.setViewportSize(PHONE);
      await page.screenshot({ path: `${stack.artifacts}/${name}-phone.png`, fullPage: true });
      await page.setViewportSize(DESKTOP);
    }
  };

  let decisions = 0;
  let reloaded = false;
  for (;;) {
    const state = await waitForTurn(page);
    if (state === "over") break;
    expect(decisions, "the game should end").toBeLessThan(1500);
    if (!reloaded && decisions === 30) {
      reloaded = true;
      await page.reload();
      await page.waitForSelector(".fae-board");
      await expect.poll(() => page.textContent(".viewer")).toContain("You play");
      continue;
    }
    const settled = await page.locator(".fae-board .settlement").count();
    const goods = await page.locator(".fae-board .goods-token").count();
    if (!shot.has("fae-board") && decisions > 60 && settled + goods >= 3) await screenshot("fae-board", true);

    const stored = await page.evaluate(() => localStorage.getItem("yggdrasil.seats.v1"));
    const token = (JSON.parse(stored ?? "{}") as Record<string, { token: string }>)[gameId!].token;
    const reply = await client.getView({ gameId: gameId!, viewer: { case: "seatToken", value: token }, includeEngineState: true });
    const view = reply.view!;
    if (view.game.case !== "fireAndAxe" || !view.legalActions.length) continue; // the page is behind: wait again
    const index = await advise({
      viewer: view.viewerSeat,
      engine_state: JSON.parse(view.game.value.engineStateJson),
      codes: view.legalActions.map((a) => Number(a.code)),
    });
    const before = await page.getAttribute("main.game", "data-version");
    if (before !== String(view.stateVersion)) continue; // not the position asked about
    const action = view.legalActions[index].action?.game;
    const kind = action?.case === "fireAndAxe" ? action.value.kind : undefined;
    const place = kind?.case === "sail" ? kind.value.to : kind?.case === "leaveWintering" ? kind.value.homeland : undefined;
    const rune = kind?.case === "playRune" || kind?.case === "discardRune" ? kind.value.rune : undefined;
    if (place !== undefined && (await page.locator(`.fae-board .target[data-place="${place}"]`).count())) {
      await page.locator(`.fae-board .target[data-place="${place}"]`).dispatchEvent("click");
      if (await page.locator(".decision .filter").count()) await page.click(`.decision button.action[data-index="${index}"]`);
      used.board += 1;
    } else if (rune !== undefined) {
      await page.click(`.fae-hand .card[data-rune="${rune}"]`);
      if (await page.locator(".decision .filter").count()) await page.click(`.decision button.action[data-index="${index}"]`);
      used.rune += 1;
    } else if (index < 9 && decisions % 2 === 0) {
      await page.keyboard.type(String(index + 1));
      if ((index + 1) * 10 <= view.legalActions.length) await page.keyboard.press("Enter");
      used.key += 1;
    } else {
      await page.click(`.decision button.action[data-index="${index}"]`);
      used.list += 1;
    }
    decisions += 1;
    await waitForChange(page, before);
  }

  await page.waitForSelector(".result tbody tr");
  await screenshot("fae-result", true);
  expect(await page.locator(".result tbody tr").count()).toBe(2);
  const result = (await client.getResult({ gameId: gameId! })).result!;
  for (const seat of result.seats) {
    const cell = await page.textContent(`.result tr[data-seat="${seat.seat}"] td:nth-child(3)`);
    expect(cell?.trim()).toBe(String(seat.score));
  }
  expect(result.game.case).toBe("fireAndAxe");
  const final = (await client.getView({ gameId: gameId!, viewer: { case: "spectator", value: {} } })).view!;
  expect(final.status).toBe(GameStatus.FINISHED);
  // The spectator saw the end too, and never a card from anyone's hand.
  await watcher.waitForSelector(".result tbody tr", { timeout: 60_000 });
  expect(await watcher.locator(".fae-hand").count()).toBe(0);
  expect(await watcher.textContent(".log")).not.toMatch(/draws a Rune: /);
  expect(await page.textContent(".log")).toBeTruthy();

  expect(used.board, "places clicked on the board").toBeGreaterThan(0);
  expect(used.key, "actions chosen with number keys").toBeGreaterThan(0);
  expect(shot.has("fae-board")).toBe(true);
  await page.click("text=Back to the lobby");
  await page.waitForSelector(`.games tr[data-game="${gameId}"]`);
  expect(await page.textContent(`.games tr[data-game="${gameId}"]`)).toContain("Fire & Axe");
  expect(errors).toEqual([]);
  expect(watcherErrors).toEqual([]);
  console.log(`played ${decisions} Fire & Axe decisions: ${JSON.stringify(used)}`);
  await watcher.close();
  await page.close();
});
