
Bpast_key