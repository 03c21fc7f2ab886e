export { createHttpDelivery, parseRetryAfter, WEBHOOK_PORTS, type HttpDeliveryOptions, type ResolvedAddress } from "./http-delivery";
export { refusedAddress, addressLiteral } from "./address-guard";
