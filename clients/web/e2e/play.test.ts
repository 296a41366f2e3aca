// A person plays a whole 2-player game in the browser against a Python bot (the bot seat is
// played by scripts/web.py), choosing by every means the page offers: clicking provinces on
// the board, clicking cards, pressing number keys, clicking the action list. Half-way the
// page is reloaded and must resume the seat from local storage. Every battle, quest round and
// Ragnarök of the game must have been in the page's event log by the player's next turn.
// Screenshots of the board, a battle and the result go to artifacts/.
import { afterAll, beforeAll, expect, inject, test } from "vitest";
import type { Browser, Page } from "playwright-core";
import { GameStatus } from "../src/gen/yggdrasil/v1/game_pb.js";
import { GAME_ID_HEADER } from "../src/api.js";
import { apiClient } from "./api.js";
import { DESKTOP, PHONE, launch, watchErrors } from "./browser.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/** A small seeded generator, so a failing run can be repeated. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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
    { timeout: 90_000, polling: 50 },
  );
  return (await handle.jsonValue()) as "decide" | "over";
}

async function version(page: Page): Promise<string | null> {
  return page.getAttribute("main.game", "data-version");
}

async function waitForChange(page: Page, before: string | null): Promise<void> {
  await page.waitForFunction(
    (v) => {
      const main = document.querySelector("main.game");
      return !!document.querySelector(".result") || !main || main.getAttribute("data-version") !== v;
    },
    before,
    { timeout: 90_000, polling: 50 },
  );
}

/** Click a random board target on its shape (the centre of an arc's bounding box can lie
 *  outside the arc), as a person would. */
async function clickArea(page: Page, rnd: () => number): Promise<void> {
  const targets = page.locator(".board .target");
  const index = Math.floor(rnd() * (await targets.count()));
  await targets.nth(index).scrollIntoViewIfNeeded();
  const seed = rnd();
  const point = await page.evaluate(
    ([i, s]) => {
      const shape = document.querySelectorAll(".board .target")[i].querySelector(".area-shape") as SVGGeometryElement;
      const box = shape.getBBox();
      const probe = shape.ownerSVGElement!.createSVGPoint();
      const inside: DOMPoint[] = [];
      for (let gx = 1; gx < 24; gx++) {
        for (let gy = 1; gy < 24; gy++) {
          probe.x = box.x + (box.width * gx) / 24;
          probe.y = box.y + (box.height * gy) / 24;
          if (shape.isPointInFill(probe)) inside.push(probe.matrixTransform(shape.getScreenCTM()!));
        }
      }
      if (inside.length) {
        const chosen = inside[Math.floor(s * inside.length)];
        return { x: chosen.x, y: chosen.y };
      }
      throw new Error("no point inside the area");
    },
    [index, seed] as const,
  );
  await page.mouse.click(point.x, point.y);
}

/** The sequence numbers of the battles' outcomes, quest rounds and Ragnaröks the page's event
 *  log shows now (it keeps the newest lines only, so the test looks at every turn). */
async function episodesShown(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll(".events li.event-battle, .events li.event-quest, .events li.event-ragnarok")].map(
      (li) => li.getAttribute("data-seq") ?? "",
    ),
  );
}

async function clickRandom(page: Page, selector: string, rnd: () => number): Promise<boolean> {
  const items = page.locator(selector);
  const count = await items.count();
  if (!count) return false;
  await items.nth(Math.floor(rnd() * count)).click();
  return true;
}

test("a person plays a whole 2-player game by clicking, against a Python bot", async () => {
  const stack = inject("stack");
  // make web-test serves the page over https (the browser accepts only the stack's certificate)
  if (process.env.YGGDRASIL_WEB_TLS) expect(stack.url).toMatch(/^https:\/\//);
  const page = await browser.newPage({ viewport: DESKTOP });
  const errors = watchErrors(page);
  await page.goto(stack.url);
  await page.fill('input[name="name"]', "Tess");
  await page.selectOption('select[name="players"]', "2");
  await page.check('input[name="others"] >> nth=0');
  await page.fill('input[name="seed"]', "7"); // with the bot's seed: the same game every run
  await page.click("text=Create and play");
  await page.waitForSelector(".board");
  const gameId = /#\/game\/([\w-]+)/.exec(page.url())?.[1];
  expect(gameId).toBeTruthy();
  await expect.poll(() => page.textContent(".viewer")).toContain("You play");

  const rnd = seeded(20251130);
  const used = { board: 0, card: 0, key: 0, list: 0 };
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
  const shown = new Set<string>(); // see episodesShown
  for (;;) {
    const state = await waitForTurn(page);
    for (const seq of await episodesShown(page)) shown.add(seq);
    if (state === "over") break;
    expect(decisions, "the game should end").toBeLessThan(400);
    if (!shot.has("board") && (await page.locator(".board .province .figure, .board .fjord .figure").count()) >= 5)
      await screenshot("board", true);
    if (!shot.has("battle") && (await page.locator(".battle-panel .battle-live tbody tr").count()) >= 2)
      await screenshot("battle", true);
    if (!shot.has("battle-outcome") && (await page.locator(".battle-panel .battle-outcome li").count()) >= 2)
      await screenshot("battle-outcome");
    if (!reloaded && decisions === 25) {
      // Reconnect and resume: the seat token is in local storage.
      reloaded = true;
      await page.reload();
      await page.waitForSelector(".board");
      await expect.poll(() => page.textContent(".viewer")).toContain("You play");
      continue;
    }

    const before = await version(page);
    const targets = await page.locator(".board .target").count();
    const cards = await page.locator(".card.playable").count();
    type Method = keyof typeof used;
    const methods: Method[] = [...(targets ? ["board", "board"] : []), ...(cards ? ["card", "card"] : []), "key", "list"] as Method[];
    const pillage = page.locator(".decision button.action", { hasText: /^\d+ pillage / });
    const seekBattle = (await pillage.count()) > 0 && rnd() < 0.6;
    const method = seekBattle ? "list" : methods[Math.floor(rnd() * methods.length)];
    if (seekBattle) {
      // Seek battles (for the battle panel and its screenshot): pillage when offered.
      await pillage.first().click();
    } else if (method === "board" || method === "card") {
      if (method === "board") await clickArea(page, rnd);
      else await clickRandom(page, ".card.playable", rnd);
      // Several choices for that place or card: the list narrows to them; take one.
      if (await page.locator(".decision .filter").count()) await clickRandom(page, ".decision button.action", rnd);
    } else if (method === "key") {
      const count = await page.locator(".decision button.action").count();
      const number = 1 + Math.floor(rnd() * count);
      await page.keyboard.type(String(number));
      if (number * 10 <= count) await page.keyboard.press("Enter");
    } else {
      await clickRandom(page, ".decision button.action", rnd);
    }
    used[method] += 1;
    decisions += 1;
    await waitForChange(page, before);
  }

  // The result screen, from the page and from the API.
  await page.waitForSelector(".result tbody tr");
  await screenshot("result", true);
  const rows = await page.locator(".result tbody tr").count();
  expect(rows).toBe(2);
  const client = apiClient(stack.url);
  const result = (await client.getResult({ gameId: gameId! })).result!;
  for (const seat of result.seats) {
    const cell = await page.textContent(`.result tr[data-seat="${seat.seat}"] td:nth-child(3)`);
    expect(cell?.trim()).toBe(String(seat.score));
  }
  const view = (await client.getView({ gameId: gameId!, viewer: { case: "spectator", value: {} } })).view!;
  expect(view.status).toBe(GameStatus.FINISHED);

  // Every battle, quest round and Ragnarök of the game was in the page's log by the player's
  // next turn (or on the result screen, for the game's last ones): the game's events, read
  // from the start, against what the page showed.
  const episodes: string[] = [];
  const kinds = new Set<string>();
  const stream = client.watchGame(
    { gameId: gameId!, viewer: { case: "spectator", value: {} }, fromSequence: 1n },
    { headers: { [GAME_ID_HEADER]: gameId! } },
  );
  for await (const message of stream) {
    const payload = message.event?.payload;
    const kind = payload?.case === "bloodRage" ? payload.value.kind.case : undefined;
    if (kind === "battleResolved" || kind === "questResults" || kind === "ragnarok") {
      episodes.push(String(message.event!.sequence));
      kinds.add(kind);
    }
  }
  expect([...kinds].sort()).toEqual(["battleResolved", "questResults", "ragnarok"]);
  await expect
    .poll(async () => {
      for (const seq of await episodesShown(page)) shown.add(seq);
      return episodes.filter((seq) => !shown.has(seq));
    }, { timeout: 10_000 })
    .toEqual([]);
  expect(await page.textContent(".result .verdict")).toMatch(/You won!|You finished #2/);

  expect(used.board, "provinces clicked on the board").toBeGreaterThan(0);
  expect(used.card, "cards clicked").toBeGreaterThan(0);
  expect(used.key, "actions chosen with number keys").toBeGreaterThan(0);
  expect(shot.has("board") && shot.has("battle")).toBe(true);
  // Back in the lobby the finished game is listed, with a way to watch it.
  await page.click("text=Back to the lobby");
  await page.waitForSelector(`.games tr[data-game="${gameId}"]`);
  expect(await page.textContent(`.games tr[data-game="${gameId}"]`)).toContain("finished");
  await screenshot("lobby", true);
  expect(errors).toEqual([]);
  console.log(`played ${decisions} decisions: ${JSON.stringify(used)}`);
  await page.close();
});
