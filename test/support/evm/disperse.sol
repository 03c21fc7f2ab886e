// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

interface IERC20 {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// A multisend contract after disperse.app's: one transaction pays many addresses, as an
/// exchange's batched withdrawal does. Token outputs are `Transfer` logs of the token, one per
/// output, all in one transaction; ether outputs are internal transfers (no transaction of their
/// own to the recipient).
contract Disperse {
    function disperseToken(IERC20 token, address[] calldata recipients, uint256[] calldata values) external {
        require(recipients.length == values.length, "Disperse: lengths");
        for (uint256 i = 0; i < recipients.length; i++) require(token.transferFrom(msg.sender, recipients[i], values[i]), "Disperse: transfer");
    }

    function disperseEther(address[] calldata recipients, uint256[] calldata values) external payable {
        require(recipients.length == values.length, "Disperse: lengths");
        for (uint256 i = 0; i < recipients.length; i++) payable(recipients[i]).transfer(values[i]);
        uint256 left = address(this).balance;
        if (left > 0) payable(msg.sender).transfer(left);
    }
}
