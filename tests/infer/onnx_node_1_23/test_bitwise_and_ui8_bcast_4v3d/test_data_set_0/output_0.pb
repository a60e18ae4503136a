B
bitwiseand