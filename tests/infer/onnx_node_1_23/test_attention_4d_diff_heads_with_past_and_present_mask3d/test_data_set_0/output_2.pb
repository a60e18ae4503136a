
Bpresent_value