import { asset, chain, listOf, money } from "../../../src/api/common-objects";
import { o } from "../../../src/api/response-schema";
import { TRANSFER_STATUSES } from "./transfer-machine";

export const Transfer = o.named(
  "Transfer",
  o.object(
    {
      id: o.id("tr"),
      object: o.literal("transfer"),
      status: o.enum(TRANSFER_STATUSES),
      destination: o.id("acct", { description: "The account that received the funds" }),
      asset: asset(),
      chain: chain(),
      amount: money("What moved from this account's available balance to the destination's"),
      description: o.nullable(o.string({ example: "march rent" })),
      created: o.time(),
      reversed_at: o.nullable(o.time()),
    },
    { description: "Funds moved from this account to another account of the same mode" },
  ),
);

export const TransferList = listOf("Transfer", Transfer);
