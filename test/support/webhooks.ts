import { ok } from "neverthrow";
import { expect } from "vitest";
import { runCommand } from "../../src/engine/command";
import { engineDeps, engineModuleDeps, provided } from "../../src/engine/engine";
import { WEBHOOK_DELIVERY } from "../../src/events/delivery-work";
import type { DueWorkRecord, Json } from "../../src/ports/storage";
import { sampleEvent } from "../../src/resources/test-helpers/test-helpers-service";
import { webhooksModule } from "../../src/resources/webhook-endpoints";
import { DeliveryReads } from "../../src/resources/webhook-endpoints/delivery-read";
import { signedAttempt, type PreparedAttempt } from "../../src/resources/webhook-endpoints/delivery-send";
import { toJob } from "../../src/workers/due-work";
import type { TestWorld } from "./engine";

/** Registers an endpoint through the API and returns it with its secret. */
export async function registerEndpoint(
  w: TestWorld,
  url: string,
  enabledEvents: string[] = ["*"],
): Promise<{ id: string; secret: string; [key: string]: unknown }> {
  const res = await w.request("POST", "/v1/webhook_endpoints", { body: { url, enabled_events: enabledEvents } });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** Emits a sample event of `type` through the test helper; returns its envelope. */
export async function trigger(w: TestWorld, type: string): Promise<{ id: string; type: string; [key: string]: unknown }> {
  const res = await w.request("POST", "/v1/test_helpers/events/trigger", { body: { type } });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** Every delivery log entry of an endpoint through the API, oldest first. */
export async function deliveryLog(w: TestWorld, endpointId: string): Promise<any[]> {
  const entries: any[] = [];
  let cursor: string | null = null;
  do {
    const res = await w.request("GET", `/v1/webhook_endpoints/${endpointId}/deliveries?limit=200${cursor ? `&starting_after=${cursor}` : ""}`);
    const page: any = await res.json();
    expect(res.status, JSON.stringify(page)).toBe(200);
    entries.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return entries.reverse();
}

/** Moves the manual clock to the next due work (at most `maxMs` ahead) and runs everything due. */
export async function runNext(w: TestWorld, maxMs = Number.POSITIVE_INFINITY): Promise<number> {
  const next = await w.engine.storage.transaction((tx) => tx.work.nextRunAt());
  if (next !== null && next > w.clock.now() && next - w.clock.now() <= maxMs) w.clock.set(next);
  return w.engine.worker.runDue();
}

/** Emits sample events of `types` in ONE transaction (so they share one fan-out); returns their ids in order. */
export async function emitTogether(w: TestWorld, types: readonly string[]): Promise<string[]> {
  const deps = engineDeps(w.engine);
  const emitted = await runCommand(deps, w.ctx, async (uow) => ok(types.map((type) => uow.emit(type, sampleEvent(deps, type, uow.now) as Json))));
  return emitted._unsafeUnwrap();
}

/**
 * What a worker that claimed the delivery item `claimed` sends before it dies, recording nothing:
 * the item read and its first `count` events signed, as the send stage does.
 */
export async function attemptsOfDyingWorker(w: TestWorld, claimed: DueWorkRecord, count = Number.POSITIVE_INFINITY): Promise<PreparedAttempt[]> {
  const deps = engineModuleDeps(w.engine);
  const delivery = await new DeliveryReads(deps, provided(w.engine, webhooksModule).webhookEndpoints).prepare(toJob(WEBHOOK_DELIVERY, claimed, deps.parse));
  return delivery ? delivery.events.slice(0, count).map((event) => signedAttempt(deps, delivery, event)) : [];
}
