import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../adapters/cli/host";
import { createMemoryStorage } from "../../adapters/memory";
import { TestReceiver, status } from "../support/receiver";

/**
 * Issue 26, in a real browser: Chromium from the machine's packages (`.ci/run` installs it when
 * missing) driven by playwright-core, against the host `npm start` runs, signed in as a user
 * would with the printed API key. With PAYRAIL_SCREENSHOTS=docs/console it also saves the
 * screenshots docs/console.md shows.
 */
const CHROMIUM = "/usr/bin/chromium";
const SHOTS = process.env.PAYRAIL_SCREENSHOTS;
const ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

describe.skipIf(!existsSync(CHROMIUM))("the console in Chromium", () => {
  let host: RunningHost;
  let browser: Browser;
  let receiver: TestReceiver;
  let n = 0;
  const api = async (method: string, path: string, body?: unknown, key = host.apiKey) => {
    const res = await fetch(`${host.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...(method === "POST" ? { "Idempotency-Key": `browser-${n++}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return (await res.json()) as any;
  };
  const signedIn = async (password = host.apiKey): Promise<Page> => {
    const context = await browser.newContext({ httpCredentials: { username: "ops@example.com", password }, viewport: { width: 1200, height: 900 } });
    return context.newPage();
  };
  const shot = async (page: Page, name: string) => {
    if (!SHOTS) return;
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };

  beforeAll(async () => {
    host = await startHost({ port: 0, storage: createMemoryStorage(), allowPrivateWebhooks: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    receiver = await TestReceiver.start();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await host?.stop();
  });

  it("asks for a sign-in, then shows the demo account's balances", async () => {
    // without credentials: 401 with the challenge that makes the browser ask for them
    const refused = await fetch(host.consoleUrl!);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
    const wrong = await (await browser.newContext({ httpCredentials: { username: "ops", password: "sk_test_wrongWRONGwrongWRONG" } })).newPage();
    // a wrong key is refused (Chromium shows the 401 page, or gives up asking)
    const answer = await wrong.goto(host.consoleUrl!).catch((e: Error) => e);
    expect(answer instanceof Error ? answer.message : String(answer?.status())).toMatch(/^401$|ERR_INVALID_AUTH_CREDENTIALS/);
    const page = await signedIn();
    await page.goto(host.consoleUrl!);
    await expect.poll(() => page.textContent("h1")).toBe("Balances");
    expect(await page.textContent("main")).toContain("USDC available");
    expect(await page.locator("svg.chart").count()).toBe(1);
    await shot(page, "balances");
  });

  it("shows a batch settling live until it completes, and a payout's legs", async () => {
    const recipient = await api("POST", "/v1/recipients", { name: "Acme", chain_addresses: { base: ADDRESS } });
    const legs = Array.from({ length: 20 }, (_, row) => ({ row, amount: "1.5", recipient: recipient.id }));
    const batch = await api("POST", "/v1/payouts/batches", { funding: { asset: "USDC", source: "auto" }, legs });
    const page = await signedIn();
    await page.goto(`${host.consoleUrl}batches/${batch.id}`);
    expect(await page.textContent("#batch-progress")).toContain("of 20 legs done");
    // the page is not reloaded: the server-sent events replace the progress until the batch completes
    await page.waitForFunction(() => document.querySelector("#batch-progress")?.textContent?.includes("completed"), undefined, { timeout: 60_000 });
    expect(await page.textContent("#batch-progress")).toContain("20 of 20 legs done");
    await shot(page, "batch");
    await page.goto(`${host.consoleUrl}payouts`);
    await page.click("tbody tr:first-child a");
    expect(await page.textContent("h1")).toMatch(/Payout po_/);
    expect(await page.textContent("main")).toContain("Legs");
    await shot(page, "payout");
  }, 90_000);

  it("resends a delivery from the page and the attempt appears", async () => {
    receiver.behave = (_req, i) => (i === 0 ? status(500) : status(200));
    const endpoint = await api("POST", "/v1/webhook_endpoints", { url: receiver.url(), enabled_events: ["*"] });
    await api("POST", "/v1/test_helpers/balances/fund", { asset: "USDC", amount: "5", chain: "base" });
    await receiver.received(1);
    const page = await signedIn();
    await page.goto(`${host.consoleUrl}webhook_endpoints/${endpoint.id}`);
    await expect.poll(() => rowsAfterReload(page), { timeout: 20_000 }).toBeGreaterThan(0);
    const attempts = await page.locator("tbody tr").count();
    await page.locator("tbody tr").last().getByRole("button", { name: "Resend" }).click();
    await page.waitForURL(/notice=/);
    expect(await page.textContent("[role=status]")).toContain("sent again");
    await expect.poll(() => rowsAfterReload(page), { timeout: 20_000 }).toBeGreaterThan(attempts);
    expect(await page.textContent("tbody")).toContain("manual");
    await shot(page, "webhook-endpoint");
  }, 60_000);

  it("a read-only key sees no button, and one account never sees another's data", async () => {
    const readOnly = await api("POST", "/v1/api_keys", { name: "viewer", scopes: ["payouts:read", "balances:read", "webhook_endpoints:read", "events:read"] });
    const page = await signedIn(readOnly.secret);
    for (const path of ["", "payouts", "webhook_endpoints"]) {
      await page.goto(`${host.consoleUrl}${path}`);
      expect(await page.locator("form[method=post] button").count(), path).toBe(0);
    }
    // another account (its own key): the demo account's payouts are not found for it
    const other = await host.engine.accounts.create({ name: "Other" });
    const otherKey = (await host.engine.accounts.createApiKey(other.id))._unsafeUnwrap().key;
    const theirs = await signedIn(otherKey);
    const mine = (await api("GET", "/v1/payouts?limit=1")).data[0];
    const res = await theirs.goto(`${host.consoleUrl}payouts/${mine.id}`);
    expect(res?.status()).toBe(404);
    await theirs.goto(`${host.consoleUrl}payouts`);
    expect(await theirs.textContent("main")).not.toContain(mine.id);
  });
});

/** The rows of the page's table once it is loaded again. */
async function rowsAfterReload(page: Page): Promise<number> {
  await page.reload();
  return page.locator("tbody tr").count();
}
