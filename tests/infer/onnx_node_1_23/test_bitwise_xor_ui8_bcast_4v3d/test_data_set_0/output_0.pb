B
bitwisexor