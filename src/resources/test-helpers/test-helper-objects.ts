import { chain } from "../../api/common-objects";
import { o } from "../../api/response-schema";

export const TestClock = o.named(
  "TestClock",
  o.object({ object: o.literal("test_clock"), now: o.time(), work_run: o.integer({ minimum: 0, description: "Due work items run while time moved" }) }),
);

export const TestChain = o.named(
  "TestChain",
  o.object({
    object: o.literal("test_chain"),
    chain: chain(),
    height: o.integer({ minimum: 0 }),
    reorganized: o.optional(o.integer({ minimum: 0, description: "Transfers the reorganisation moved out of the replaced blocks (reorg only)" })),
  }),
);

export const TestVenueHalt = o.named(
  "TestVenueHalt",
  o.object(
    {
      object: o.literal("test_venue_halt"),
      venue: o.string({ description: 'The venue (as quotes name it in venues[].name), or "all"', example: "all" }),
      halted_until: o.nullable(o.time({ description: "Until when it refuses to execute for this account; null once lifted" })),
    },
    { description: "A venue halted for this test-mode account (docs/decisions.md §10)" },
  ),
);
