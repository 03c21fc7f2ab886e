import type { ApiKeyRecord } from "../../ports/storage";

/** Whether a key authenticates at `now`: not revoked, and not past its expiry (a rolled key's grace). */
export function keyUsable(key: Pick<ApiKeyRecord, "expiresAt" | "revokedAt">, now: number): boolean {
  return key.revokedAt === null && (key.expiresAt === null || now < key.expiresAt);
}
