export { createHttpDelivery, parseRetryAfter, type HttpDeliveryOptions, type ResolvedAddress } from "./http-delivery";
export { refusedAddress, addressLiteral } from "./address-guard";
