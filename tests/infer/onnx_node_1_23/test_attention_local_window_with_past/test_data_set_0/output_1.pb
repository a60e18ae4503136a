
Bpresent_key