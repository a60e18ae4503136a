
Bpresent_key