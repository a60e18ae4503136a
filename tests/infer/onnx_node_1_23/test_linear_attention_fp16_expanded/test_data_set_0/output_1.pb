
Bpresent_state