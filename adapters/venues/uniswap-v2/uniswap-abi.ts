import { parseAbi } from "viem";

/** The parts of Uniswap v2's contracts (v2-core 1.0.1, v2-periphery Router02) and ERC-20 the adapter calls. */
export const PAIR_ABI = parseAbi([
  "function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)",
  "event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)",
]);

export const FACTORY_ABI = parseAbi(["function getPair(address tokenA, address tokenB) view returns (address pair)"]);

export const ROUTER_ABI = parseAbi([
  "function WETH() view returns (address)",
  "function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)",
  "function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns (uint256[] amounts)",
  "function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)",
]);

export const ERC20_ABI = parseAbi([
  "function allowance(address owner, address spender) view returns (uint256)",
  "function approve(address spender, uint256 value) returns (bool)",
  "function balanceOf(address who) view returns (uint256)",
]);

/** Uniswap v2's fee: 0.3 % of the input (997/1000), in the venue port's parts per million. */
export const UNISWAP_V2_FEE_PPM = 3_000n;

export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
