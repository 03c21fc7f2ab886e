/** docs/decisions.md §10: addresses whose payout legs fail on the simulated chains (dead…), and good ones. */
export const MAGIC = {
  deadEvm: "0x000000000000000000000000000000000000dEaD",
  deadSolana: "GtdFhnuFLAu1b23Dwuiyg5WQxUeskMziXU1111111111",
  deadBitcoin: "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqph4dradfyq",
  goodEvm: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  goodSolana: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
};
