/** The in-process node for the EVM tests (and `npx hardhat node` for the host tests). */
module.exports = {
  networks: {
    hardhat: {
      chainId: 31337,
      accounts: { mnemonic: "test test test test test test test test test test test junk", count: 5 },
    },
  },
};
